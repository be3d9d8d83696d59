"""sysroot_glibc_test, or, without a clang for the sysroot toolchain, a test that fails saying how to get one."""

load("@debian_bullseye_sysroot//:defs.bzl", "GLIBC", "SYSROOT_CLANG", "SYSROOT_MISSING")
load("@rules_python//python:defs.bzl", "py_test")
load("//tests/host_clang:host_clang.bzl", "missing_test")

def sysroot_glibc_tests(name):
    """The glibc check of a binary built with the sysroot toolchain against one built without.

    Args:
      name: unused; the tests keep their own names.
    """
    if not SYSROOT_CLANG:
        missing_test(name = "sysroot_glibc_test", message = SYSROOT_MISSING)
        return
    py_test(
        name = "sysroot_glibc_test",
        size = "small",
        srcs = ["sysroot_glibc_test.py"],
        args = [
            "--sysroot_binary=$(rlocationpath :vector_add_demo_bullseye)",
            "--default_binary=$(rlocationpath @rules_cuda_stages_examples//vector_add:vector_add_demo)",
            "--glibc=" + GLIBC,
        ],
        data = [
            ":vector_add_demo_bullseye",
            "@rules_cuda_stages_examples//vector_add:vector_add_demo",
        ],
        deps = [
            "@rules_cuda_stages_pypi//absl_py",
            "@rules_cuda_stages_pypi//bazel_runfiles",
        ],
    )
