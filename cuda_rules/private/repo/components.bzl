"""NVIDIA's CUDA components beyond the compiler: what each one is made of and which `@cuda//:<name>` targets it gives.

Read by the `cuda` module extension (the repositories and the `@cuda` hub) and
by tools/cuda_wheels/lock.py (which packages to pin per CUDA version). Keep it
JSON-compatible (lock.py parses it): plain dicts, lists and strings only.

Per component:
  package:      PyPI name; "{major}" stands for the CUDA major version (cuDNN, NCCL).
  strip_prefix: the directory of the archive that becomes the repository root
                (holding include/ and lib/); "{major}" as above.
  toolkit:      "yes": unpacked into the toolkit repository itself (small, header-only
                or header-mostly components a local toolkit has under include/);
                "no": a repository of its own (@cuda_<v>_<component>), fetched only
                when a build uses one of its targets.
  targets:      @cuda//:<name> -> a dict of
                  shared: library basenames ("libcublas.so", "libcudnn_*.so"); the files
                          lib/<basename> or lib/<basename>.<N...> are linked and shipped in
                          runfiles (the shortest name of each library, e.g. libcublas.so.13);
                  static: static library basenames ("libnvptxcompiler_static.a");
                  deps:   other @cuda//: targets it needs (link and run time);
                  hdrs:   glob patterns under include/ (default: the component's headers);
                  stub:   [header, soname]: a link-only stub library generated from the
                          header (the real library comes with the driver);
                  runtime: "yes": its functions are the CUDA runtime's, so it links the
                          build's runtime (--@rules_cuda_stages//cuda_rules:runtime).
                  doc:    its own line for messages (default: the component's doc).
                  aliases: rules_cuda's other names for it (cublas_so, nvidia-ml_so, ...): @cuda
                          aliases of this target.
                  optional: "yes": a hermetic toolkit may lack its files (NVIDIA's wheels ship no
                          static libraries): there the target fails analysis naming the fix,
                          instead of the fetch failing.
                Every target also gets the toolkit's headers (its headers include them).
  redist:       the component's name in NVIDIA's redistrib manifests (redistrib_<version>.json), for
                toolkits from cuda.redist(...); absent: not part of the CUDA release (cuDNN, NCCL).
  headers:      name prefixes of the files it puts in include/ (for components with a
                repository of their own): how tests tell, in a local toolkit's include
                directory, which headers come with a library rather than the toolkit.
  doc:          one line for docs/toolkits.md and messages.
"""

visibility(["//cuda_rules/...", "//tests/..."])

CUDA_COMPONENTS = {
    "cublas": {
        "headers": [
            "cublas",
            "nvblas",
        ],
        "doc": "cuBLAS and cuBLASLt (dense linear algebra)",
        "redist": "libcublas",
        "package": "nvidia-cublas",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "cublas": {
                "aliases": ["cublas_so"],
                "deps": ["cublasLt"],
                "shared": ["libcublas.so"],
            },
            # The static variant public projects name (NVIDIA's wheels have none).
            "cublas_static": {
                "doc": "cuBLAS and cuBLASLt as static libraries",
                "deps": ["culibos_a"],
                "optional": "yes",
                "runtime": "yes",
                "static": [
                    "libcublas_static.a",
                    "libcublasLt_static.a",
                ],
            },
            "cublasLt": {
                "aliases": ["cublasLt_so"],
                "shared": ["libcublasLt.so"],
            },
        },
        "toolkit": "no",
    },
    "cudnn": {
        "headers": [
            "cudnn",
        ],
        "doc": "cuDNN (deep neural network primitives); loads its sub-libraries at run time",
        "package": "nvidia-cudnn-cu{major}",
        "strip_prefix": "nvidia/cudnn",
        "targets": {
            "cudnn": {
                # libcudnn_engines_runtime_compiled calls the driver API.
                "deps": [
                    "cublas",
                    "cuda",
                ],
                "shared": [
                    "libcudnn.so",
                    "libcudnn_*.so",
                ],
            },
        },
        "toolkit": "no",
    },
    "cufft": {
        "headers": [
            "cufft",
        ],
        "doc": "cuFFT and cuFFTW (fast Fourier transforms)",
        "redist": "libcufft",
        "package": "nvidia-cufft",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "cufft": {
                "aliases": ["cufft_so"],
                "deps": ["nvjitlink"],
                "shared": ["libcufft.so"],
            },
            "cufftw": {
                "aliases": ["cufftw_so"],
                "deps": ["cufft"],
                "shared": ["libcufftw.so"],
            },
            # rules_cuda's static variants (NVIDIA's wheels have none).
            "cufft_static": {
                "doc": "cuFFT as a static library",
                "aliases": ["cufft_static_a"],
                # libcufft_static.a calls the runtime and libculibos.
                "deps": ["culibos_a"],
                "optional": "yes",
                "runtime": "yes",
                "static": ["libcufft_static.a"],
            },
            "cufft_static_nocallback": {
                "doc": "cuFFT as a static library, without callbacks",
                "aliases": ["cufft_static_nocallback_a"],
                "deps": ["culibos_a"],
                "optional": "yes",
                "runtime": "yes",
                "static": ["libcufft_static_nocallback.a"],
            },
            "cufftw_static": {
                "doc": "cuFFTW as a static library",
                "aliases": ["cufftw_static_a"],
                "deps": ["cufft_static"],
                "optional": "yes",
                "static": ["libcufftw_static.a"],
            },
        },
        "toolkit": "no",
    },
    "cufile": {
        "headers": [
            "cufile",
        ],
        "doc": "cuFile (GPUDirect Storage: file I/O to and from GPU memory)",
        "redist": "libcufile",
        "package": "nvidia-cufile",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "cufile": {
                "aliases": ["cufile_so"],
                "shared": ["libcufile.so"],
            },
            # rules_cuda's name of cuFile's RDMA library.
            "cufile_rdma_so": {
                "deps": ["cufile"],
                "shared": ["libcufile_rdma.so"],
            },
        },
        "toolkit": "no",
    },
    "cupti": {
        "headers": [
            "cupti",
            "nvperf_",
            "generated_",
            "Openacc",
            "Openmp",
            "cuda_stdint.h",
        ],
        "doc": "CUPTI (profiling and tracing) and the NVIDIA perf host/target libraries",
        "redist": "cuda_cupti",
        "package": "nvidia-cuda-cupti",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "cupti": {
                "aliases": ["cupti_so"],
                "shared": ["libcupti.so"],
            },
            "nvperf_host": {
                "aliases": ["nvperf_host_so"],
                "shared": ["libnvperf_host.so"],
            },
            "nvperf_target": {
                "aliases": ["nvperf_target_so"],
                "shared": ["libnvperf_target.so"],
            },
        },
        "toolkit": "no",
    },
    "curand": {
        "headers": [
            "curand",
        ],
        "doc": "cuRAND (random numbers; curand_kernel.h for device code)",
        "redist": "libcurand",
        "package": "nvidia-curand",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "curand": {
                "aliases": ["curand_so"],
                "shared": ["libcurand.so"],
            },
        },
        "toolkit": "no",
    },
    "cusolver": {
        "headers": [
            "cusolver",
        ],
        "doc": "cuSOLVER and cuSOLVERMg (dense and sparse solvers)",
        "redist": "libcusolver",
        "package": "nvidia-cusolver",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "cusolver": {
                "aliases": ["cusolver_so"],
                "deps": [
                    "cublas",
                    "cusparse",
                    "nvjitlink",
                ],
                "shared": ["libcusolver.so"],
            },
            "cusolverMg": {
                "deps": ["cusolver"],
                "shared": ["libcusolverMg.so"],
            },
        },
        "toolkit": "no",
    },
    "cusparse": {
        "headers": [
            "cusparse",
        ],
        "doc": "cuSPARSE (sparse linear algebra)",
        "redist": "libcusparse",
        "package": "nvidia-cusparse",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "cusparse": {
                "aliases": ["cusparse_so"],
                "deps": ["nvjitlink"],
                "shared": ["libcusparse.so"],
            },
        },
        "toolkit": "no",
    },
    "cuxxfilt": {
        "doc": "the device-symbol demangler's header (nv_decode.h)",
        "redist": "cuda_cuxxfilt",
        "package": "nvidia-cuda-cuxxfilt",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {},
        "toolkit": "yes",
    },
    "nccl": {
        "headers": [
            "nccl",
        ],
        "doc": "NCCL (collective communication between GPUs)",
        "package": "nvidia-nccl-cu{major}",
        "strip_prefix": "nvidia/nccl",
        "targets": {
            "nccl": {
                "shared": ["libnccl.so"],
            },
        },
        "toolkit": "no",
    },
    "npp": {
        "headers": [
            "npp",
        ],
        "doc": "NPP (image and signal processing primitives)",
        "redist": "libnpp",
        "package": "nvidia-npp",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "npp": {
                "deps": [
                    "nppc",
                    "nppi",
                    "npps",
                ],
            },
            "nppc": {
                "aliases": ["nppc_so"],
                "shared": ["libnppc.so"],
            },
            "nppi": {
                "deps": [
                    "nppial",
                    "nppicc",
                    "nppidei",
                    "nppif",
                    "nppig",
                    "nppim",
                    "nppist",
                    "nppisu",
                    "nppitc",
                ],
            },
            "nppial": {
                "aliases": ["nppial_so"],
                "deps": ["nppc"],
                "shared": ["libnppial.so"],
            },
            "nppicc": {
                "aliases": ["nppicc_so"],
                "deps": ["nppc"],
                "shared": ["libnppicc.so"],
            },
            "nppidei": {
                "aliases": ["nppidei_so"],
                "deps": ["nppc"],
                "shared": ["libnppidei.so"],
            },
            "nppif": {
                "aliases": ["nppif_so"],
                "deps": ["nppc"],
                "shared": ["libnppif.so"],
            },
            "nppig": {
                "aliases": ["nppig_so"],
                "deps": ["nppc"],
                "shared": ["libnppig.so"],
            },
            "nppim": {
                "aliases": ["nppim_so"],
                "deps": ["nppc"],
                "shared": ["libnppim.so"],
            },
            "nppist": {
                "aliases": ["nppist_so"],
                "deps": ["nppc"],
                "shared": ["libnppist.so"],
            },
            "nppisu": {
                "aliases": ["nppisu_so"],
                "deps": ["nppc"],
                "shared": ["libnppisu.so"],
            },
            "nppitc": {
                "aliases": ["nppitc_so"],
                "deps": ["nppc"],
                "shared": ["libnppitc.so"],
            },
            "npps": {
                "aliases": ["npps_so"],
                "deps": ["nppc"],
                "shared": ["libnpps.so"],
            },
        },
        "toolkit": "no",
    },
    "nvjitlink": {
        "headers": [
            "nvJitLink",
        ],
        "doc": "nvJitLink (link-time optimization of device code at run time)",
        "redist": "libnvjitlink",
        "package": "nvidia-nvjitlink",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            # rules_cuda's spelling.
            "nvJitLink": {
                "deps": ["nvjitlink"],
                "hdrs": [],
            },
            "nvjitlink": {
                "aliases": ["nvJitLink_so"],
                "shared": ["libnvJitLink.so"],
            },
            # rules_cuda's static variant (NVIDIA's wheels have none).
            "nvjitlink_static": {
                "doc": "nvJitLink as a static library",
                "aliases": [
                    "nvJitLink_static",
                    "nvJitLink_static_a",
                ],
                "optional": "yes",
                "static": ["libnvJitLink_static.a"],
            },
        },
        "toolkit": "no",
    },
    "nvjpeg": {
        "headers": [
            "nvjpeg",
        ],
        "doc": "nvJPEG (JPEG decoding and encoding)",
        "redist": "libnvjpeg",
        "package": "nvidia-nvjpeg",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "nvjpeg": {
                "aliases": ["nvjpeg_so"],
                "shared": ["libnvjpeg.so"],
            },
            # rules_cuda's static variant (NVIDIA's wheels have none).
            "nvjpeg_static": {
                "doc": "nvJPEG as a static library",
                "aliases": ["nvjpeg_static_a"],
                "deps": ["culibos_a"],
                "optional": "yes",
                "runtime": "yes",
                "static": ["libnvjpeg_static.a"],
            },
        },
        "toolkit": "no",
    },
    "nvml": {
        "doc": "NVML's header (nvml.h) and a link stub; libnvidia-ml.so.1 comes with the driver",
        "redist": "cuda_nvml_dev",
        "package": "nvidia-nvml-dev",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "nvml": {
                "aliases": ["nvidia-ml_so"],
                "hdrs": ["nvml.h"],
                "stub": [
                    "nvml.h",
                    "libnvidia-ml.so.1",
                ],
            },
        },
        "toolkit": "yes",
    },
    "nvptxcompiler": {
        "headers": [
            "nvPTXCompiler",
        ],
        "doc": "the PTX compiler library (static)",
        "redist": "libnvptxcompiler",
        "package": "nvidia-nvptxcompiler",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "nvptxcompiler": {
                "aliases": ["nvptxcompiler_so"],
                "static": ["libnvptxcompiler_static.a"],
            },
        },
        "toolkit": "no",
    },
    "nvrtc": {
        "headers": [
            "nvrtc",
        ],
        "doc": "NVRTC (runtime compilation of CUDA C++); loads nvrtc-builtins at run time",
        "redist": "cuda_nvrtc",
        "package": "nvidia-cuda-nvrtc",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "nvrtc": {
                "aliases": ["nvrtc_so"],
                "shared": [
                    "libnvrtc.so",
                    "libnvrtc-builtins.so",
                ],
            },
        },
        "toolkit": "no",
    },
    "nvtx": {
        "doc": "NVTX 3 (header-only annotations for profilers)",
        "redist": "cuda_nvtx",
        "package": "nvidia-nvtx",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "nvtx": {
                "hdrs": ["nvtx3/**"],
            },
            # rules_cuda's names of NVTX's libraries: NVTX 2's libnvToolsExt (CUDA 12.8 and
            # before) and NVTX 3's optional interop library.
            "libnvToolsExt_so": {
                "doc": "NVTX 2's library, libnvToolsExt.so (CUDA 12.8 and before; @cuda//:nvtx is NVTX 3, header-only)",
                "optional": "yes",
                "shared": ["libnvToolsExt.so"],
            },
            "libnvtx3interop_so": {
                "doc": "NVTX 3's interop library",
                "optional": "yes",
                "shared": ["libnvtx3interop.so"],
            },
            # rules_cuda's name for the header-only NVTX 3 (its `nvtx` links NVTX 2's libnvToolsExt).
            "nvtx3": {
                "deps": ["nvtx"],
                "hdrs": [],
            },
        },
        "toolkit": "yes",
    },
    "profiler_api": {
        "doc": "the profiler control API's headers (cuda_profiler_api.h, cudaProfiler.h)",
        "redist": "cuda_profiler_api",
        "package": "nvidia-cuda-profiler-api",
        "strip_prefix": "nvidia/cu{major}",
        "targets": {
            "cuda_profiler_api": {
                "hdrs": [
                    "cuda_profiler_api.h",
                    "cudaProfiler.h",
                ],
                # cudaProfilerStart and cudaProfilerStop are in cudart.
                "runtime": "yes",
            },
        },
        "toolkit": "yes",
    },
}

# Targets of the toolkit repository itself (BUILD.toolkit.tpl), with what they are.
# rules_cuda's names, plus our own where noted.
TOOLKIT_TARGETS = {
    "cccl": "CCCL: libcu++, CUB and Thrust (headers)",
    "cub": "CUB (headers)",
    "cuda": "the driver API (cuda.h) with a link stub of libcuda.so.1; the driver provides the library at run time",
    "cuda_driver": "alias of :cuda",
    "cuda_headers": "every header of the toolkit's include directory",
    "cuda_runtime": "the CUDA runtime the rules link: libcudart_static.a where Bazel links statically (cc_binary; what nvcc links), libcudart.so where it links dynamically (cc_test)",
    "cuda_runtime_shared": "the CUDA runtime as a shared library (libcudart.so), shipped in runfiles",
    "cuda_runtime_static": "alias of :cuda_runtime",
    "cudadevrt": "the device runtime (libcudadevrt.a)",
    "libcudacxx": "libcu++ (headers)",
    "no_cuda_runtime": "no CUDA runtime (rules_cuda's): --@rules_cuda_stages//cuda_rules:runtime=@cuda//:no_cuda_runtime links none",
    "thrust": "Thrust, with CUB (headers)",
}
