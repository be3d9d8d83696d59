"""Public rules of rules_cuda_stages.

    load("@rules_cuda_stages//cuda_rules:defs.bzl", "cuda_library", "cuda_binary", "cuda_test", "cuda_device_link")

Definitions outside cuda_rules/*.bzl are private.
"""

load("//cuda_rules/private:rules/cuda_binary.bzl", _cuda_binary = "cuda_binary", _cuda_test = "cuda_test")
load("//cuda_rules/private:rules/cuda_device_link.bzl", _cuda_device_link = "cuda_device_link")
load("//cuda_rules/private:rules/cuda_library.bzl", _cuda_library = "cuda_library")

cuda_library = _cuda_library
cuda_binary = _cuda_binary
cuda_test = _cuda_test
cuda_device_link = _cuda_device_link
