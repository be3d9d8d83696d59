"""The host-clang tests, or, without a clang nvcc accepts, tests that fail saying how to get one."""

load("@host_clang//:defs.bzl", "HOST_CLANG", "HOST_CLANG_MISSING", "HOST_CLANG_TOOLKIT")
load("@rules_python//python:defs.bzl", "py_test")
load("//cuda_rules:defs.bzl", "cuda_library")
load("//tests/fidelity:fidelity.bzl", "fidelity_test")
load(":host_clang.bzl", "missing_test", "with_host_clang")

# name: (source, copts) of the fidelity cases.
_FIDELITY = {
    "clang_plain_kernel_O3_sm80": ("plain_kernel.cu", ["-O3"]),
    "clang_cub_reduce_lineinfo_sm80": ("cub_reduce.cu", ["-lineinfo"]),
    "clang_ext_lambda_sm80": ("ext_lambda.cu", ["--extended-lambda"]),
}

# compiler: the objects whose host compiler host_compiler_test identifies.
_OBJECTS = {
    "clang": ":kernel_objects_clang",
    "gcc": ":kernel_objects",
}

def host_clang_tests(name):
    """Every test of this package: real ones with a clang, failing ones without.

    Args:
      name: unused; the tests keep their own names.
    """
    if not HOST_CLANG:
        for test in list(_FIDELITY) + ["host_compiler_%s_test" % c for c in _OBJECTS]:
            missing_test(name = test, message = HOST_CLANG_MISSING)
        return

    # Staged PTX and cubins equal nvcc's own, both with clang as host compiler
    # (its device preprocess is clang -E; the reference gets the same -ccbin).
    for test, (src, copts) in _FIDELITY.items():
        fidelity_test(
            name = test,
            srcs = ["//tests/fidelity:srcs/" + src],
            archs = "sm_80",
            copts = copts,
            host_clang = True,
            toolkit = HOST_CLANG_TOOLKIT,
        )

    # Not vacuous: which compiler made the host objects, from their .comment
    # section: clang's under the transition, gcc's without it.
    cuda_library(
        name = "kernel",
        srcs = ["//tests/fidelity:srcs/plain_kernel.cu"],
        archs = "sm_80",
        tags = ["manual"],
    )
    native.filegroup(
        name = "kernel_objects",
        srcs = [":kernel"],
        output_group = "cuda_objects",
        tags = ["manual"],
    )
    with_host_clang(
        name = "kernel_objects_clang",
        srcs = [":kernel_objects"],
        toolkit = HOST_CLANG_TOOLKIT,
        tags = ["manual"],
    )

    # Two tests: runfiles paths do not name the configuration.
    for compiler, objects in _OBJECTS.items():
        py_test(
            name = "host_compiler_%s_test" % compiler,
            size = "small",
            srcs = ["host_compiler_test.py"],
            args = [
                "--expect=" + compiler,
                "--objects=$(rlocationpaths %s)" % objects,
            ],
            data = [objects],
            main = "host_compiler_test.py",
            deps = [
                "@rules_cuda_stages_pypi//absl_py",
                "@rules_cuda_stages_pypi//bazel_runfiles",
            ],
        )

    # The GPU tests' binaries built with clang (every C++ compile, every nvcc
    # host stage, the link), so `bazel build //...` keeps them building; the
    # GPU machine runs them (docs/cuda_library.md, "Host compiler").
    with_host_clang(
        name = "gpu_tests_clang",
        testonly = True,
        srcs = [
            "//tests/gpu:cub_reduce_test",
            "//tests/gpu:vector_add_test",
            "//tests/rdc:separate_compilation_test",
        ],
        toolkit = HOST_CLANG_TOOLKIT,
    )
