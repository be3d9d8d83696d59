"""An e2e test that needs clang 22 (tests/clang/cuda_clang22.bzl), or, without it, one that fails saying how to get it."""

load("@cuda_clang22//:defs.bzl", "CUDA_CLANG22", "CUDA_CLANG22_MISSING")
load("@rules_python//python:defs.bzl", "py_test")
load("//tests/host_clang:host_clang.bzl", "missing_test")

def clang22_e2e_test(name, **kwargs):
    """A py_test with clang 22 as the C++ toolchain of its nested builds; missing_test without clang 22.

    Args:
      name: the test's name.
      **kwargs: py_test's attributes.
    """
    if not CUDA_CLANG22:
        missing_test(name = name, message = CUDA_CLANG22_MISSING, tags = kwargs.get("tags", []))
        return
    py_test(name = name, **kwargs)
