"""fidelity_test: a staged cuda_library's PTX and cubins against nvcc's own."""

load("@rules_python//python:defs.bzl", "py_test")
load("//cuda_rules:defs.bzl", "cuda_library")

def fidelity_test(name, srcs, reference_extra = [], expect = "equal", size = "medium", **kwargs):
    """Builds `srcs` with cuda_library (staged) and compares with nvcc --keep.

    Args:
      name: test name; the staged library is `<name>_staged`.
      srcs: .cu files.
      reference_extra: nvcc options given to the reference run only.
      expect: "equal", or "differ" (a non-vacuity check with reference_extra).
      size: test size.
      **kwargs: cuda_library attributes (copts, archs, ptxasopts, ...).
    """
    lib = name + "_staged"
    cuda_library(name = lib, srcs = srcs, tags = ["manual"], **kwargs)
    for group in ["ptx", "cubin", "cuda_plan"]:
        native.filegroup(name = "{}_{}".format(lib, group), srcs = [":" + lib], output_group = group, tags = ["manual"])
    py_test(
        name = name,
        size = size,
        srcs = ["fidelity_test.py"],
        main = "fidelity_test.py",
        args = [
            "--target=" + lib,
            "--package=" + native.package_name(),
            "--expect=" + expect,
        ] + (["--reference_extra=" + ",".join(reference_extra)] if reference_extra else []),
        data = srcs + [
            ":{}_{}".format(lib, g)
            for g in ["ptx", "cubin", "cuda_plan"]
        ] + [
            "@local_cuda//:compiler_files",
            "@local_cuda//:bin/nvcc",
        ],
        deps = [
            "//tools/nvcc_plan:nvcc_plan_lib",
            "@rules_cuda_stages_pypi//absl_py",
            "@rules_cuda_stages_pypi//bazel_runfiles",
        ],
    )
