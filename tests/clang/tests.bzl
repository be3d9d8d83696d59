"""The clang-as-CUDA-compiler tests, or, without clang 21 (or 22), tests that fail saying how to get it."""

load("@cuda_clang22//:defs.bzl", "CUDA_CLANG22", "CUDA_CLANG22_MISSING")
load("@host_clang//:defs.bzl", "HOST_CLANG", "HOST_CLANG_MAJOR", "HOST_CLANG_MISSING")
load("@rules_cc//cc:cc_test.bzl", "cc_test")
load("//cuda_rules:defs.bzl", "cuda_library")
load("//tests/host_clang:host_clang.bzl", "missing_test")
load(
    ":analysis_test.bzl",
    "clang22_cuda12_failure_test",
    "clang22_failure_test",
    "clang22_wrapper_headers_test",
    "clang_cuda13_failure_test",
    "clang_device_debug_failure_test",
    "clang_failure_test",
    "clang_gcc_failure_test",
)
load(":clang.bzl", "clang_arch_subset_test", "clang_compiled", "clang_fidelity_test", "with_clang")

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
    # clang's __host__ / __device__ overloads of one signature (nvcc rejects them).
    "clang_hd_overload_fidelity_test": (["//tests/clang:hd_overload.cu"], {"archs": "sm_90", "copts": ["-O2"]}, [], "equal"),
    # A PTX-only arch: its PTX equals clang's, and no ptxas runs for it.
    "clang_plain_kernel_ptx_only_fidelity_test": (["plain_kernel.cu"], {"archs": "sm_80,compute_90"}, [], "equal"),
    # Relocatable device code (-fgpu-rdc, the old offload driver): the PTX, the
    # relocatable cubins, and every section of the object with contents.
    "clang_rdc_fidelity_test": (
        ["//tests/clang:rdc_kernel.cu", "//tests/clang:rdc_twice.cu"],
        {"archs": "sm_80,sm_90,compute_90", "copts": ["-O3"], "rdc": True},
        [],
        "equal",
    ),
    # Not vacuous: the reference compiled without flushing denormals differs.
    "clang_plain_kernel_ftz_differs_test": (
        ["plain_kernel.cu"],
        {"archs": "sm_80", "copts": ["-O3"]},
        ["-fcuda-flush-denormals-to-zero"],
        "differ",
    ),
}

_ANALYSIS = [
    "clang_unsupported_pair_test",
    "clang_not_a_clang_toolchain_test",
    "clang_rdc_flag_test",
    "clang_rdc_one_file_twice_test",
    "clang_arch_pair_test",
    "clang_lto_test",
    "clang_unstaged_test",
    "clang_device_debug_test",
]

# Each fidelity case also runs with clang 22 x CUDA 13.0, named clang22_<case> (clang_<case> is clang 21's).
_CLANG22 = "clang22_"

# With the hermetic clang 22 (host_toolchain=clang22: Debian 13's clang over
# Debian 11's libstdc++ 10 and glibc 2.31), named clang22_hermetic_<case>: these
# need no addon.
_HERMETIC = [
    "clang_plain_kernel_O3_3arch_fidelity_test",
    "clang_cub_reduce_ftz_fidelity_test",
    "clang_rdc_fidelity_test",
]

_ANALYSIS_CLANG22 = [
    "clang22_arch_subset_commands_test",
    "clang22_unsupported_pair_test",
    "clang22_lto_test",
    "clang22_wrapper_headers_test",
]

def clang_tests(name):
    """Every test of this package: clang 21 x CUDA 12.4's, and clang 22 x CUDA 13.0's.

    Args:
      name: unused; the tests keep their own names.
    """
    _clang22_tests()
    _clang21_tests()
    for test in _HERMETIC:
        srcs, attrs, extra, expect = _FIDELITY[test]
        clang_fidelity_test(
            name = "clang22_hermetic_" + test[len("clang_"):],
            srcs = [s if s.startswith("//") else "//tests/fidelity:srcs/" + s for s in srcs],
            reference_extra = extra,
            expect = expect,
            clang = 22,
            hermetic = True,
            **attrs
        )

def _clang22_tests():
    """clang 22 x CUDA 13.0: the fidelity cases and its analysis tests, or tests failing with CUDA_CLANG22_MISSING."""
    if not CUDA_CLANG22:
        for test in [_CLANG22 + t[len("clang_"):] for t in _FIDELITY] + _ANALYSIS_CLANG22:
            missing_test(name = test, message = CUDA_CLANG22_MISSING)
        return
    for test, (srcs, attrs, extra, expect) in _FIDELITY.items():
        clang_fidelity_test(
            name = _CLANG22 + test[len("clang_"):],
            srcs = [s if s.startswith("//") else "//tests/fidelity:srcs/" + s for s in srcs],
            reference_extra = extra,
            expect = expect,
            clang = 22,
            **attrs
        )

    # clang 22 defines __CUDA_ARCH_LIST__: a developer's sm_90 build still runs
    # CI's device compile, ptxas and host compile (compile/clang.bzl pins the list).
    clang_arch_subset_test(
        name = "clang22_arch_subset_commands_test",
        src = "//tests/fidelity:srcs/plain_kernel.cu",
        clang = 22,
        subset = "sm_90",
    )
    clang22_cuda12_failure_test(
        name = "clang22_unsupported_pair_test",
        target_under_test = ":analysis_kernel",
        messages = ["clang 22 with CUDA 12.4 is not a pair", "clang 22 with CUDA 13.0", "toolkit=13.0", "--bazelw-addon clang22"],
    )
    clang22_failure_test(
        name = "clang22_lto_test",
        target_under_test = ":analysis_lto",
        messages = ["lto_80", "device LTO IR is nvcc's"],
    )
    clang22_wrapper_headers_test(
        name = "clang22_wrapper_headers_test",
        target_under_test = ":analysis_kernel",
    )

def _clang21_tests():
    """clang 21 x CUDA 12.4: every other test of the package, or tests failing with how to get clang 21."""
    _analysis_targets()
    if not HOST_CLANG or HOST_CLANG_MAJOR != 21:
        message = HOST_CLANG_MISSING or ("needs clang 21 (the clang x CUDA pair these rules support with CUDA 12.4), " +
                                         "found clang {} ({}): run `tools/bazelw --bazelw-addon clang` and use its clang " +
                                         "(docs/bazelw.md, \"Addons\")").format(HOST_CLANG_MAJOR, HOST_CLANG)
        for test in list(_FIDELITY) + _ANALYSIS + ["mixed_clang_nvcc_test"]:
            missing_test(name = test, message = message)
        return
    for test, (srcs, attrs, extra, expect) in _FIDELITY.items():
        clang_fidelity_test(
            name = test,
            srcs = [s if s.startswith("//") else "//tests/fidelity:srcs/" + s for s in srcs],
            reference_extra = extra,
            expect = expect,
            **attrs
        )

    # GPU (the lead's machine): one binary linking a library clang compiled and
    # one nvcc compiled; both kernels run. Only with the toolkit of the clang
    # pair (--@rules_cuda_stages//cuda_rules:toolkit=12.4), so both sides link
    # one CUDA runtime.
    cuda_library(
        name = "saxpy",
        srcs = [
            "hd_overload.cu",
            "//tests/fidelity:srcs/plain_kernel.cu",
        ],
        tags = ["manual"],
    )
    clang_compiled(
        name = "saxpy_clang",
        lib = ":saxpy",
        tags = ["manual"],
    )
    cuda_library(
        name = "rdc_affine",
        srcs = [
            "rdc_kernel.cu",
            "rdc_twice.cu",
        ],
        rdc = True,
        tags = ["manual"],
    )
    clang_compiled(
        name = "rdc_affine_clang",
        lib = ":rdc_affine",
        tags = ["manual"],
    )
    cuda_library(
        name = "scale_nvcc",
        srcs = ["mixed_nvcc.cu"],
        tags = ["manual"],
    )
    cc_test(
        name = "mixed_clang_nvcc_test",
        size = "small",
        srcs = ["mixed_main.cc"],
        tags = ["requires-gpu"],
        target_compatible_with = select({
            "//cuda_rules:toolkit_12.4": [],
            "//conditions:default": ["@platforms//:incompatible"],
        }),
        deps = [
            ":rdc_affine_clang",
            ":saxpy_clang",
            ":scale_nvcc",
        ],
    )

    # The GPU tests built with clang as the CUDA compiler, so a build keeps
    # them building; the GPU machine runs them with
    # --@rules_cuda_stages//cuda_rules:compiler=clang (docs/cuda_library.md, "clang as the CUDA compiler").
    with_clang(
        name = "gpu_tests_clang",
        testonly = True,
        srcs = [
            "//tests/gpu:cub_reduce_test",
            "//tests/gpu:driver_api_demo_test",
            "//tests/gpu:features_test",
            "//tests/gpu:templated_test",
            "//tests/gpu:vector_add_test",
            # Relocatable device code, device-linked by nvlink (not
            # dynamic_parallelism_test: clang has no device-side kernel launch).
            "//tests/rdc:cc_test_over_rdc",
            "//tests/rdc:nolto_test",
            "//tests/rdc:scale_only_test",
            "//tests/rdc:separate_compilation_test",
        ],
    )

    # What clang does not compile fails analysis in one line, naming both
    # versions, the limit or the fix (the targets: _analysis_targets).
    clang_cuda13_failure_test(
        name = "clang_unsupported_pair_test",
        target_under_test = ":analysis_kernel",
        messages = ["clang 21 with CUDA 13.0 is not a pair", "clang 21 with CUDA 12.4", "toolkit=12.4"],
    )
    clang_gcc_failure_test(
        name = "clang_not_a_clang_toolchain_test",
        target_under_test = ":analysis_kernel",
        messages = ["not clang", "--repo_env=CC="],
    )
    cuda_library(name = "analysis_rdc_twice_a", srcs = ["rdc_twice.cu"], archs = "sm_80", rdc = True, tags = ["manual"])
    cuda_library(name = "analysis_rdc_twice_b", srcs = ["rdc_twice.cu"], archs = "sm_80", rdc = True, tags = ["manual"])
    cuda_library(
        name = "analysis_rdc_one_file_twice",
        srcs = ["rdc_kernel.cu"],
        archs = "sm_80",
        rdc = True,
        deps = [":analysis_rdc_twice_a", ":analysis_rdc_twice_b"],
        tags = ["manual"],
    )
    clang_failure_test(
        name = "clang_rdc_one_file_twice_test",
        target_under_test = ":analysis_rdc_one_file_twice",
        messages = [
            "tests/clang/rdc_twice.cu is relocatable device code of both //tests/clang:analysis_rdc_twice_a and //tests/clang:analysis_rdc_twice_b",
            "compiled by clang",
            "Fix: compile the file in one cuda_library",
        ],
    )
    clang_failure_test(
        name = "clang_rdc_flag_test",
        target_under_test = ":analysis_rdc_flag",
        messages = ["-fgpu-rdc in the options", "rdc attribute", "Fix: set rdc = True"],
    )
    clang_failure_test(
        name = "clang_arch_pair_test",
        target_under_test = ":analysis_arch_pair",
        messages = ["compute_80 as sm_86", "clang's PTX for sm_80 is assembled for sm_80 only"],
    )
    clang_failure_test(
        name = "clang_lto_test",
        target_under_test = ":analysis_lto",
        messages = ["lto_80", "device LTO IR is nvcc's"],
    )
    clang_failure_test(
        name = "clang_unstaged_test",
        target_under_test = ":analysis_unstaged",
        messages = ["clang compiles CUDA in stages only"],
    )
    clang_device_debug_failure_test(
        name = "clang_device_debug_test",
        target_under_test = ":analysis_kernel",
        messages = ["nvcc's -G", "--cuda-noopt-device-debug"],
    )

def _analysis_targets():
    """The targets the analysis tests of both clangs analyze."""
    cuda_library(name = "analysis_kernel", srcs = ["//tests/fidelity:srcs/plain_kernel.cu"], archs = "sm_80", tags = ["manual"])
    cuda_library(name = "analysis_rdc_flag", srcs = ["//tests/fidelity:srcs/plain_kernel.cu"], archs = "sm_80", copts = ["-fgpu-rdc"], tags = ["manual"])
    cuda_library(name = "analysis_arch_pair", srcs = ["//tests/fidelity:srcs/plain_kernel.cu"], archs = "compute_80:sm_86", tags = ["manual"])
    cuda_library(name = "analysis_lto", srcs = ["//tests/fidelity:srcs/plain_kernel.cu"], archs = "lto_80", rdc = True, tags = ["manual"])
    cuda_library(name = "analysis_unstaged", srcs = ["//tests/fidelity:srcs/plain_kernel.cu"], archs = "sm_80", staged = False, tags = ["manual"])
