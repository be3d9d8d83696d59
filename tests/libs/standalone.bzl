"""Every @cuda//:<label> from plain C++: a .cpp including its main headers and calling into it, with only that label."""

load("@bazel_skylib//rules:build_test.bzl", "build_test")
load("@bazel_skylib//rules:write_file.bzl", "write_file")
load("@rules_cc//cc:cc_binary.bzl", "cc_binary")
load("//cuda_rules/private/repo:components.bzl", "CUDA_COMPONENTS")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:library_repository.bzl", "hub_targets")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:rules_cuda_names.bzl", "TOOLKIT_COMPAT_TARGETS")  # buildifier: disable=bzl-visibility

# @cuda//:<label> -> (its main headers, a function the program takes the
# address of, so the link must resolve it from the label's libraries; "" for
# header-only labels). Every label of @cuda is here (checked below).
STANDALONE = {
    # The toolkit's own targets.
    "cccl": (["thrust/host_vector.h", "thrust/sort.h", "cuda/std/span"], ""),
    # CUB is device code; its version header is what a host .cpp can include.
    "cub": (["cub/version.cuh"], ""),
    "cuda": (["cuda.h"], "cuInit"),
    "cuda_driver": (["cuda.h"], "cuInit"),
    "cuda_headers": (["cuda_runtime_api.h", "cuda.h", "cuComplex.h", "cuda_fp16.h", "cuda_bf16.h", "library_types.h"], ""),
    "cuda_profiler_api": (["cuda_profiler_api.h"], "cudaProfilerStart"),
    "cuda_runtime": (["cuda_runtime.h"], "cudaGetDeviceCount"),
    "cuda_runtime_shared": (["cuda_runtime.h"], "cudaGetDeviceCount"),
    "cuda_runtime_static": (["cuda_runtime.h"], "cudaGetDeviceCount"),
    # The device runtime's host side has no header of its own: it links.
    "cudadevrt": ([], ""),
    "libcudacxx": (["cuda/std/span", "cuda/std/atomic", "nv/target"], ""),
    # Headers only: the runtime is what the build brings instead.
    "no_cuda_runtime": (["cuda_runtime_api.h"], ""),
    "nvml": (["nvml.h"], "nvmlInit"),
    "nvtx": (["nvtx3/nvToolsExt.h"], "nvtxRangePushA"),
    "nvtx3": (["nvtx3/nvToolsExt.h"], "nvtxRangePushA"),
    "thrust": (["thrust/host_vector.h", "thrust/sort.h"], ""),
    # NVIDIA's libraries.
    "cublas": (["cublas_v2.h"], "cublasCreate"),
    "cublasLt": (["cublasLt.h"], "cublasLtCreate"),
    "cudnn": (["cudnn.h"], "cudnnCreate"),
    "cufft": (["cufft.h", "cufftXt.h"], "cufftPlan1d"),
    "cufile": (["cufile.h"], "cuFileDriverOpen"),
    "cufftw": (["cufftw.h"], "fftw_plan_dft_1d"),
    "cupti": (["cupti.h"], "cuptiGetVersion"),
    "curand": (["curand.h"], "curandCreateGenerator"),
    "cusolver": (["cusolverDn.h", "cusolverSp.h"], "cusolverDnCreate"),
    "cusolverMg": (["cusolverMg.h"], "cusolverMgCreate"),
    "cusparse": (["cusparse.h"], "cusparseCreate"),
    "nccl": (["nccl.h"], "ncclGetVersion"),
    "npp": (["npp.h"], "nppGetLibVersion"),
    "nppc": (["nppcore.h"], "nppGetLibVersion"),
    "nppi": (["nppi.h"], "nppiMalloc_8u_C1"),
    "nppial": (["nppi_arithmetic_and_logical_operations.h"], "nppiAdd_32s_C1R_Ctx"),
    "nppicc": (["nppi_color_conversion.h"], "nppiRGBToYUV_8u_C3R_Ctx"),
    "nppidei": (["nppi_data_exchange_and_initialization.h"], "nppiSet_8s_C1R_Ctx"),
    "nppif": (["nppi_filtering_functions.h"], "nppiFilterColumn_8u_C1R_Ctx"),
    "nppig": (["nppi_geometry_transforms.h"], "nppiResizeSqrPixel_8u_C1R_Ctx"),
    "nppim": (["nppi_morphological_operations.h"], "nppiDilate_8u_C1R_Ctx"),
    "nppist": (["nppi_statistics_functions.h"], "nppiSum_8u_C1R_Ctx"),
    "nppisu": (["nppi_support_functions.h"], "nppiMalloc_8u_C1"),
    "nppitc": (["nppi_threshold_and_compare_operations.h"], "nppiThreshold_8u_C1R_Ctx"),
    "npps": (["npps.h"], "nppsMinEvery_8u_I_Ctx"),
    "nvJitLink": (["nvJitLink.h"], "nvJitLinkVersion"),
    "nvjitlink": (["nvJitLink.h"], "nvJitLinkVersion"),
    "nvjpeg": (["nvjpeg.h"], "nvjpegCreateSimple"),
    "nvperf_host": (["nvperf_host.h"], "NVPW_InitializeHost"),
    "nvperf_target": (["nvperf_target.h"], "NVPW_InitializeTarget"),
    "nvptxcompiler": (["nvPTXCompiler.h"], "nvPTXCompilerGetVersion"),
    "nvrtc": (["nvrtc.h"], "nvrtcVersion"),
    # NVTX 3's interop library (the default toolkit has it).
    "libnvtx3interop_so": (["nvtx3/nvToolsExt.h"], ""),
    # rules_cuda's <component>_headers: the headers, no library.
    "cublas_headers": (["cublas_v2.h", "cublasLt.h"], ""),
    "cudnn_headers": (["cudnn.h"], ""),
    "cufft_headers": (["cufft.h"], ""),
    "cufile_headers": (["cufile.h"], ""),
    "cupti_headers": (["cupti.h"], ""),
    "curand_headers": (["curand.h"], ""),
    "cusolver_headers": (["cusolverDn.h"], ""),
    "cusparse_headers": (["cusparse.h"], ""),
    # nv_decode.h uses size_t without including its header.
    "cuxxfilt_headers": (["cstddef", "nv_decode.h"], ""),
    "nccl_headers": (["nccl.h"], ""),
    "npp_headers": (["npp.h"], ""),
    "nvjitlink_headers": (["nvJitLink.h"], ""),
    "nvjpeg_headers": (["nvjpeg.h"], ""),
    "nvml_headers": (["nvml.h"], ""),
    "nvptxcompiler_headers": (["nvPTXCompiler.h"], ""),
    "nvrtc_headers": (["nvrtc.h"], ""),
    "nvtx_headers": (["nvtx3/nvToolsExt.h"], ""),
    "profiler_api_headers": (["cuda_profiler_api.h"], ""),
}

# @cuda targets that are no C++ library (files, tools, a setting), and the
# libraries the default toolkit (NVIDIA's wheels) may lack (libculibos,
# libNVVM's headers, static libraries), which fail analysis
# naming the fix there (tests/rules_cuda_compat:compat_analysis_tests).
NOT_STANDALONE = [
    t
    for t in hub_targets()
    if t.endswith("_all_files") or t.endswith("_license") or
       t in TOOLKIT_COMPAT_TARGETS
] + [
    name
    for spec in CUDA_COMPONENTS.values()
    for name, target in spec["targets"].items()
    if target.get("optional") == "yes" and name != "libnvtx3interop_so"
] + [
    # cuFile's RDMA library links the system's libibverbs and librdmacm
    # (rdma-core), which build machines rarely have.
    "cufile_rdma_so",
]

def _source(label, headers, symbol):
    lines = ["// Generated by tests/libs/standalone.bzl: @cuda//:{} from plain C++, with only that label.".format(label)]
    lines += ["#include <{}>".format(h) for h in headers]
    lines += ["", "#include <cstdio>", "", "int main() {"]
    if symbol:
        lines.append("  // The address of a function of the label's libraries: the link must resolve it.")
        lines.append("  void* volatile fn = (void*)&{};".format(symbol))
        lines.append("  std::printf(\"{} %p\\n\", fn);".format(symbol))
    lines += ["  return 0;", "}", ""]
    return lines

def standalone_test(name):
    """One cc_binary per @cuda label (a .cpp over its main headers, deps = that label only), and a build_test of all.

    Args:
      name: the build_test's name.
    """
    missing = [t for t in hub_targets() if t not in STANDALONE and t not in NOT_STANDALONE]
    extra = [t for t in STANDALONE if t not in hub_targets()]
    if missing or extra:
        fail("tests/libs/standalone.bzl: STANDALONE must list every @cuda target: missing {}, not in @cuda {}".format(missing, extra))
    targets = []
    for label in sorted(STANDALONE.keys()):
        headers, symbol = STANDALONE[label]
        write_file(
            name = "{}_{}_src".format(name, label),
            out = "{}/{}.cpp".format(name, label),
            content = _source(label, headers, symbol),
            tags = ["manual"],
            testonly = True,
        )
        cc_binary(
            name = "{}/{}".format(name, label),
            srcs = [":{}/{}.cpp".format(name, label)],
            deps = ["@cuda//:" + label],
            tags = ["manual"],
            testonly = True,
        )
        targets.append(":{}/{}".format(name, label))
    build_test(
        name = name,
        targets = targets,
    )
