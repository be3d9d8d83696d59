"""Public providers of rules_cuda_stages."""

load("//cuda_rules/private:providers.bzl", _CudaInfo = "CudaInfo", _CudaToolchainInfo = "CudaToolchainInfo")

CudaInfo = _CudaInfo
CudaToolchainInfo = _CudaToolchainInfo
