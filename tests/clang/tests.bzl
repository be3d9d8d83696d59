"""The clang-as-CUDA-compiler tests, or, without clang 21, tests that fail saying how to get it."""

load("@host_clang//:defs.bzl", "HOST_CLANG", "HOST_CLANG_MISSING")
load("//tests/host_clang:host_clang.bzl", "missing_test")
load(":clang.bzl", "clang_fidelity_test")

# name: (sources, cuda_library attributes, reference_extra, expect).
_FIDELITY = {
    "clang_plain_kernel_sm80_fidelity_test": (["plain_kernel.cu"], {"archs": "sm_80"}, [], "equal"),
    "clang_plain_kernel_O3_3arch_fidelity_test": (
        ["plain_kernel.cu"],
        {"archs": "sm_80,sm_86,sm_90,compute_90", "copts": ["-O3"]},
        [],
        "equal",
    ),
    "clang_cub_reduce_ftz_fidelity_test": (
        ["cub_reduce.cu"],
        {"archs": "sm_80,sm_90,compute_90", "copts": ["-O3", "-fcuda-flush-denormals-to-zero"]},
        [],
        "equal",
    ),
    # A PTX-only arch: its PTX equals clang's, and no ptxas runs for it.
    "clang_plain_kernel_ptx_only_fidelity_test": (["plain_kernel.cu"], {"archs": "sm_80,compute_90"}, [], "equal"),
    # Not vacuous: the reference compiled without flushing denormals differs.
    "clang_plain_kernel_ftz_differs_test": (
        ["plain_kernel.cu"],
        {"archs": "sm_80", "copts": ["-O3"]},
        ["-fcuda-flush-denormals-to-zero"],
        "differ",
    ),
}

def clang_tests(name):
    """Every test of this package.

    Args:
      name: unused; the tests keep their own names.
    """
    if not HOST_CLANG:
        for test in _FIDELITY:
            missing_test(name = test, message = HOST_CLANG_MISSING)
        return
    for test, (srcs, attrs, extra, expect) in _FIDELITY.items():
        clang_fidelity_test(
            name = test,
            srcs = ["//tests/fidelity:srcs/" + s for s in srcs],
            reference_extra = extra,
            expect = expect,
            **attrs
        )
