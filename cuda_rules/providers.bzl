"""Public providers of rules_cuda_stages."""

load("//cuda_rules/private:providers.bzl", _CudaInfo = "CudaInfo", _CudaObjectsInfo = "CudaObjectsInfo", _CudaToolchainInfo = "CudaToolchainInfo")

CudaInfo = _CudaInfo
CudaObjectsInfo = _CudaObjectsInfo
CudaToolchainInfo = _CudaToolchainInfo
