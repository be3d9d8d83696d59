"""Public toolchain API of rules_cuda_stages."""

load(
    "//cuda_rules/private:toolchain.bzl",
    _CUDA_TOOLCHAINS = "CUDA_TOOLCHAINS",
    _CUDA_TOOLCHAIN_TYPE = "CUDA_TOOLCHAIN_TYPE",
    _cuda_toolchain = "cuda_toolchain",
    _cuda_toolkit_files = "cuda_toolkit_files",
    _find_cuda_toolchain = "find_cuda_toolchain",
    _missing_cuda_toolchain = "missing_cuda_toolchain",
)

cuda_toolchain = _cuda_toolchain
CUDA_TOOLCHAIN_TYPE = _CUDA_TOOLCHAIN_TYPE
CUDA_TOOLCHAINS = _CUDA_TOOLCHAINS
find_cuda_toolchain = _find_cuda_toolchain
cuda_toolkit_files = _cuda_toolkit_files

# Used by the generated @cuda_local when no toolkit is installed.
missing_cuda_toolchain = _missing_cuda_toolchain
