"""Public module extensions of rules_cuda_stages.

Use from MODULE.bazel:

    cuda = use_extension("@rules_cuda_stages//cuda_rules:extensions.bzl", "cuda")
    use_repo(cuda, "cuda")

    # Optional: a CUDA release from NVIDIA's redistributable archives (any 11.4+
    # release; its manifest pinned by sha256), selected with toolkit=12.6.
    cuda.redist(version = "12.6.3", sha256 = "...")

The toolkits: 13.0 (the default) and 13.5 from NVIDIA's PyPI wheels, 12.4 from
Debian's packages, the `cuda.redist` releases, and `local` (the installed one);
each hermetic one for Linux x86-64 and aarch64, picked by toolchain resolution
from the execution and target platforms (docs/toolkits.md).

`@cuda` gives rules_cuda's component labels for the toolkit a build selects
(--@rules_cuda_stages//cuda_rules:toolkit=13.0|13.5|12.4|<redist>|local) and its
target platform: `@cuda//:cuda_runtime`,
`cuda_runtime_static`, `cuda_runtime_shared`, `cuda_headers`, `cccl`, `cub`, `thrust`,
`libcudacxx`, `cuda` / `cuda_driver` (the driver API with a link stub), `nvtx`,
`cuda_profiler_api`, `nvml`, and NVIDIA's libraries: `cublas`, `cublasLt`, `cufft`,
`cufftw`, `curand`, `cusparse`, `cusolver`, `cusolverMg`, `nvjitlink`, `nvrtc`,
`nvptxcompiler`, `cupti`, `nvperf_host`, `nvperf_target`, `npp` and `npp*`, `nvjpeg`,
`nccl`, `cudnn`. Each library of each CUDA version and platform is a repository of its
own, fetched only when a build uses it (docs/toolkits.md).
"""

load("//cuda_rules/private:extension.bzl", _cuda = "cuda")

cuda = _cuda
