"""Public module extensions of rules_cuda_stages.

Use from MODULE.bazel:

    cuda = use_extension("@rules_cuda_stages//cuda_rules:extensions.bzl", "cuda")
    use_repo(cuda, "local_cuda")
"""

load("//cuda_rules/private:extension.bzl", _cuda = "cuda")

cuda = _cuda
