"""Analysis tests of C++ sources in cuda_library / cuda_objects: compiled as CUDA, in stages, like .cu files."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load(
    "//tests/common:analysis.bzl",
    "STAGED_MNEMONICS",
    "actions_of",
    "assert_counts",
    "layouts_of",
    "staged_counts",
)
load("//tests/common:suite.bzl", "test_suite_of")

def _source_of(action):
    """The value after -c in an nvcc command line."""
    argv = action.argv
    return argv[argv.index("-c") + 1] if "-c" in argv else None

def _language_of(action):
    """nvcc's -x value before -c, or None."""
    argv = action.argv
    c = argv.index("-c") if "-c" in argv else len(argv)
    values = [argv[i + 1] for i in range(c) if argv[i] == "-x"]
    return values[-1] if values else None

def _check_plans(env, expected):
    """Each source's CudaPlan compiles it with the expected -x (dict of basename -> "cu" or None)."""
    found = {}
    for plan in actions_of(env, "CudaPlan"):
        src = _source_of(plan)
        if src:
            found[src.rpartition("/")[2]] = _language_of(plan)
    asserts.equals(env, expected, found, "source -> nvcc -x of the CudaPlan actions")

def _no_cpp_compile(env):
    asserts.equals(env, [], [a.mnemonic for a in actions_of(env, "CppCompile")], "CppCompile actions")

def _staged_cc_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_plans(env, {"scale.cc": "cu"})
    layouts = layouts_of(env)
    asserts.equals(env, 1, len(layouts), "layouts")
    if layouts:
        virtuals = len(layouts[0]["archs"])
        reals = len([r for a in layouts[0]["archs"] for r in a["reals"]])
        assert_counts(env, staged_counts(virtuals = virtuals, reals = reals))
        asserts.equals(env, "scale", layouts[0]["stem"], "stem")
        asserts.true(env, layouts[0]["directory"].endswith("/_cuda/scale/scale.cc"), "directory: " + layouts[0]["directory"])
    _no_cpp_compile(env)
    return analysistest.end(env)

staged_cc_test = analysistest.make(_staged_cc_test_impl)

def _objects_cpp_test_impl(ctx):
    env = analysistest.begin(ctx)

    # Both kinds of device code are declared (whole-program and relocatable).
    plans = actions_of(env, "CudaPlan")
    asserts.equals(env, 2, len(plans), "CudaPlan actions")
    for plan in plans:
        asserts.equals(env, "cu", _language_of(plan), "-x of " + str(plan.argv))
    asserts.equals(env, [False, True], sorted([layout["rdc"] for layout in layouts_of(env)]), "rdc of the layouts")
    _no_cpp_compile(env)
    return analysistest.end(env)

objects_cpp_test = analysistest.make(_objects_cpp_test_impl)

def _unstaged_cxx_test_impl(ctx):
    env = analysistest.begin(ctx)
    counts = {m: 0 for m in STAGED_MNEMONICS}
    counts["CudaCompile"] = 1
    assert_counts(env, counts)
    for action in actions_of(env, "CudaCompile"):
        asserts.equals(env, "cu", _language_of(action), "-x of CudaCompile " + str(action.argv))
        asserts.true(env, _source_of(action).endswith("tests/cc_sources/squares.cxx"), "source: " + _source_of(action))
    _no_cpp_compile(env)
    return analysistest.end(env)

unstaged_cxx_test = analysistest.make(_unstaged_cxx_test_impl)

def _same_stem_test_impl(ctx):
    env = analysistest.begin(ctx)

    # same_stem.cu without -x (nvcc's own choice), same_stem.cc with -x cu;
    # each in its own directory, the same stem; the .c file by the C++ toolchain.
    _check_plans(env, {"same_stem.cc": "cu", "same_stem.cu": None})
    assert_counts(env, staged_counts(virtuals = 1, reals = 1, srcs = 2))
    directories = sorted([layout["directory"].rpartition("/_cuda/")[2] for layout in layouts_of(env)])
    asserts.equals(env, ["same_stem/same_stem", "same_stem/same_stem.cc"], directories, "output directories")
    asserts.equals(env, ["same_stem", "same_stem"], [layout["stem"] for layout in layouts_of(env)], "stems")
    cpp = actions_of(env, "CppCompile")
    asserts.equals(env, 1, len(cpp), "CppCompile actions")
    for action in cpp:
        asserts.equals(env, ["c_helper.c"], [f.basename for f in action.inputs.to_list() if f.basename.startswith("c_helper")])
    for action in analysistest.target_actions(env):
        if action.mnemonic in STAGED_MNEMONICS:
            asserts.equals(env, [], [f.basename for f in action.inputs.to_list() if f.basename == "c_helper.c"], action.mnemonic)
    return analysistest.end(env)

same_stem_test = analysistest.make(_same_stem_test_impl)

def _same_directory_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "tests/cc_sources/dup.cc and tests/cc_sources/dup.cc.cu would compile into the same directory")
    asserts.expect_failure(env, "Fix: rename one of them")
    return analysistest.end(env)

same_directory_test = analysistest.make(_same_directory_test_impl, expect_failure = True)

def _x_cu_copt_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_plans(env, {"same_stem.cc": "cu"})
    return analysistest.end(env)

x_cu_copt_test = analysistest.make(_x_cu_copt_test_impl)

def _x_cxx_copt_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "nvcc option '-x=c++' in `copts` is not allowed")
    asserts.expect_failure(env, "would drop its device code")
    asserts.expect_failure(env, "belongs in a cc_library")
    return analysistest.end(env)

x_cxx_copt_test = analysistest.make(_x_cxx_copt_test_impl, expect_failure = True)

def _x_cuda_copt_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "nvcc option '-x cuda' in `copts` is not allowed")
    asserts.expect_failure(env, "'cuda' is clang's name for it")
    return analysistest.end(env)

x_cuda_copt_test = analysistest.make(_x_cuda_copt_test_impl, expect_failure = True)

def cc_sources_test_suite(name):
    """Analysis tests of C++ sources compiled as CUDA, over the targets of tests/cc_sources/BUILD.bazel.

    Args:
      name: the test_suite's name.
    """
    test_suite_of(name, {
        "objects_cpp_test": (objects_cpp_test, {"target_under_test": ":axpy_objects"}),
        "same_directory_test": (same_directory_test, {"target_under_test": ":same_directory"}),
        "same_stem_test": (same_stem_test, {"target_under_test": ":same_stem"}),
        "staged_cc_test": (staged_cc_test, {"target_under_test": ":scale"}),
        "unstaged_cxx_test": (unstaged_cxx_test, {"target_under_test": ":squares"}),
        "x_cu_copt_test": (x_cu_copt_test, {"target_under_test": ":x_cu_copt"}),
        "x_cuda_copt_test": (x_cuda_copt_test, {"target_under_test": ":x_cuda_copt"}),
        "x_cxx_copt_test": (x_cxx_copt_test, {"target_under_test": ":x_cxx_copt"}),
    })
