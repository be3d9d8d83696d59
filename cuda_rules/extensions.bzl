"""Public module extensions of rules_cuda_stages.

Use from MODULE.bazel:

    cuda = use_extension("@rules_cuda_stages//cuda_rules:extensions.bzl", "cuda")
    use_repo(cuda, "cuda")

`@cuda` gives rules_cuda's component labels for the toolkit a build selects
(--@rules_cuda_stages//cuda_rules:toolkit=13.0|13.5|local): `@cuda//:cuda_runtime`,
`cuda_runtime_static`, `cuda_runtime_shared`, `cuda_headers`, `cccl`, `cub`, `thrust`,
`libcudacxx`, `cuda` / `cuda_driver` (the driver API with a link stub), `nvtx`,
`cuda_profiler_api`, `nvml`, and NVIDIA's libraries: `cublas`, `cublasLt`, `cufft`,
`cufftw`, `curand`, `cusparse`, `cusolver`, `cusolverMg`, `nvjitlink`, `nvrtc`,
`nvptxcompiler`, `cupti`, `nvperf_host`, `nvperf_target`, `npp` and `npp*`, `nvjpeg`,
`nccl`, `cudnn`. Each library of each CUDA version is a repository of its own, fetched
only when a build uses it (docs/toolkits.md).
"""

load("//cuda_rules/private:extension.bzl", _cuda = "cuda")

cuda = _cuda
