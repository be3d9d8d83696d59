"""Make variables and $(location ...) in copts, host_copts, ptxasopts, defines and local_defines, as cc_library has them."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("@rules_cc//cc:cc_library.bzl", "cc_library")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//cuda_rules:defs.bzl", "cuda_library")
load("//tests/common:analysis.bzl", "assert_argv_contains", "assert_argv_lacks", "only_action")
load("//tests/common:suite.bzl", "test_suite_of")

def _template_variables_impl(ctx):
    return [platform_common.TemplateVariableInfo(ctx.attr.variables)]

template_variables = rule(
    implementation = _template_variables_impl,
    doc = "Make variables for a target's `toolchains` attribute (what a toolchain rule provides).",
    attrs = {"variables": attr.string_dict()},
)

def _expanded_test_impl(ctx):
    env = analysistest.begin(ctx)
    gendir = ctx.var["GENDIR"]
    bindir = ctx.var["BINDIR"]
    mode = ctx.var["COMPILATION_MODE"]
    data = "tests/cuda_library/make_variables_data.txt"
    plan = only_action(env, "CudaPlan")
    if plan:
        assert_argv_contains(env, plan, [
            # copts: $(GENDIR), $$, a configuration variable, split into words
            "-Xcompiler=-DFROM_GENDIR=" + gendir,
            "-DCOPT_DOLLAR=$HOME",
            "-DMODE=" + mode,
            "-DSECOND_WORD",
            "-DQUOTED=a b",
            # a variable of the target's `toolchains`, in ptxasopts
            "-Xptxas=--warn-on-spills",
            # host_copts: $(BINDIR)
            "-Xcompiler=-DFROM_BINDIR=" + bindir,
            # defines and local_defines: $(location :data), $(rootpath ...), $$
            "-DDATA_PATH=" + data,
            "-DDATA_ROOTPATH=" + data,
            "-DLOCAL_DOLLAR=$LOCAL_DIR",
        ])
        cc = [a for a in plan.argv if a.startswith("-DCC=")]
        asserts.equals(env, 1, len(cc), "-DCC= arguments: {}".format(cc))
        if cc:
            # The C++ toolchain's $(CC): its compiler, the -ccbin nvcc gets.
            asserts.equals(env, plan.argv[plan.argv.index("-ccbin") + 1], cc[0][len("-DCC="):])
        for arg in plan.argv:
            asserts.false(env, "$(" in arg or "$$" in arg, "CudaPlan argument '{}' was not expanded".format(arg))
        assert_argv_lacks(env, plan, ["-DMODE=$(COMPILATION_MODE) -DSECOND_WORD"])

    # What dependents see: the expanded define.
    defines = analysistest.target_under_test(env)[CcInfo].compilation_context.defines.to_list()
    asserts.true(env, "DATA_PATH=" + data in defines, "CcInfo defines: {}".format(defines))

    # The target's C file (the C++ toolchain compiles it) gets host_copts and local_defines, expanded too.
    cpp = only_action(env, "CppCompile")
    if cpp:
        assert_argv_contains(env, cpp, ["-DFROM_BINDIR=" + bindir, "-DLOCAL_DOLLAR=$LOCAL_DIR", "-DDATA_ROOTPATH=" + data])
    return analysistest.end(env)

expanded_test = analysistest.make(_expanded_test_impl)

def _no_tokenization_test_impl(ctx):
    env = analysistest.begin(ctx)
    plan = only_action(env, "CudaPlan")
    if plan:
        assert_argv_contains(env, plan, ["-DMODE=" + ctx.var["COMPILATION_MODE"] + " -DSECOND_WORD"])
    return analysistest.end(env)

no_tokenization_test = analysistest.make(_no_tokenization_test_impl)

def _rejected_test_impl(ctx):
    env = analysistest.begin(ctx)
    for text in ctx.attr.messages:
        asserts.expect_failure(env, text)
    return analysistest.end(env)

rejected_test = analysistest.make(
    _rejected_test_impl,
    expect_failure = True,
    attrs = {"messages": attr.string_list()},
)

# What cc_library and cuda_library reject, with the part of the message both
# print: each case is a cc_library and a cuda_library with the same attribute
# (<case>_cc, <case>_cuda), both expected to fail analysis with the messages.
REJECTED = {
    "define_two_words": ({"defines": ["A=1 B=2"]}, ["contains too many tokens (found 2, expecting exactly one)"]),
    "location_not_a_prerequisite": (
        {"copts": ["-include $(location :other_kernel.cu)"]},
        ["//tests/cuda_library:other_kernel.cu", "not a declared prerequisite"],
    ),
    # A command in $(...) is a variable name to Bazel: not defined (with a
    # blank it is two words, which a define may not be).
    "shell_command": ({"copts": ["$(touch${IFS}/tmp/rules_cuda_stages_make_variables)"]}, ["not defined"]),
    "shell_command_define": (
        {"defines": ["X=$(touch /tmp/rules_cuda_stages_make_variables)"]},
        ["contains too many tokens (found 2, expecting exactly one)"],
    ),
    "undefined_variable": ({"copts": ["-DX=$(NOT_A_VARIABLE)"]}, ["$(NOT_A_VARIABLE) not defined"]),
    "unterminated_quote": ({"copts": ["-DX='a"]}, ["unterminated quotation"]),
}

def make_variables_test_suite(name):
    """Analysis tests of Make variable expansion (over tests/cuda_library/BUILD.bazel's targets and REJECTED's).

    Args:
      name: the test_suite's name.
    """
    tests = {
        "make_variables_expanded_test": (expanded_test, {"target_under_test": ":make_variables"}),
        "make_variables_no_tokenization_test": (no_tokenization_test, {"target_under_test": ":make_variables_no_tokenization"}),
    }
    for case, (attrs, messages) in REJECTED.items():
        cc_library(name = case + "_cc", srcs = ["helper.cc"], tags = ["manual"], **attrs)
        cuda_library(name = case + "_cuda", srcs = ["kernel.cu"], archs = "sm_90", tags = ["manual"], **attrs)
        for kind in ("cc", "cuda"):
            tests["{}_{}_rejected_test".format(case, kind)] = (rejected_test, {
                "target_under_test": ":{}_{}".format(case, kind),
                "messages": messages,
            })
    test_suite_of(name, tests)
