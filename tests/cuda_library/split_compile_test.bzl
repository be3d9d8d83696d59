"""Split compilation (nvcc's --split-compile): the setting's sources and order, nvcc's one option, errors, CPUs declared."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts", "unittest")
load("//cuda_rules/private:compile/split_compile.bzl", "declared_cpus", "splits_stage", "take_split_compile")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private:stages.bzl", "COMPILE_STAGES")  # buildifier: disable=bzl-visibility
load("//tests/common:analysis.bzl", "layouts_of", "only_action")
load("//tests/common:suite.bzl", "test_suite_of")

_SPLIT_SETTING = str(Label("//cuda_rules:split_compile"))
_COPTS_SETTING = str(Label("//cuda_rules:copts"))

def _split_options(options):
    return [o for o in options if "split-compile" in o]

def _plan_options_test_impl(ctx):
    env = analysistest.begin(ctx)
    layouts = layouts_of(env)
    asserts.equals(env, 1, len(layouts), "layouts")
    if layouts:
        # nvcc gets the target's setting once, as --split-compile=N (none when off).
        asserts.equals(env, ctx.attr.expected, _split_options(layouts[0]["user_options"]))
    return analysistest.end(env)

def _plan_options_test(config_settings = {}):
    return analysistest.make(
        _plan_options_test_impl,
        config_settings = config_settings,
        attrs = {"expected": attr.string_list(doc = "The split options nvcc gets.")},
    )

plan_options_test = _plan_options_test()
plan_options_with_flag_test = _plan_options_test({_SPLIT_SETTING: 6})
plan_options_with_flag_and_copts_flag_test = _plan_options_test({_SPLIT_SETTING: 6, _COPTS_SETTING: ["-O3", "-split-compile=5"]})

def _unstaged_test_impl(ctx):
    env = analysistest.begin(ctx)
    action = only_action(env, "CudaCompile")
    if action:
        asserts.equals(env, ["--split-compile=4"], _split_options(action.argv))
    return analysistest.end(env)

unstaged_test = analysistest.make(_unstaged_test_impl)

def _failure_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, ctx.attr.message)
    return analysistest.end(env)

failure_test = analysistest.make(_failure_test_impl, expect_failure = True, attrs = {"message": attr.string()})
failure_with_flag_test = analysistest.make(
    _failure_test_impl,
    expect_failure = True,
    config_settings = {_SPLIT_SETTING: -3},
    attrs = {"message": attr.string()},
)

def _rules_test_impl(ctx):
    env = unittest.begin(ctx)
    label = "//pkg:t"
    asserts.equals(env, (["-O3"], 4), take_split_compile(label, "copts", ["--split-compile=4", "-O3"]))
    asserts.equals(env, (["-O3", "-G"], 2), take_split_compile(label, "copts", ["-O3", "-split-compile", "8", "-G", "--split-compile", "2"]))
    asserts.equals(env, (["--split-compile-extended=4"], None), take_split_compile(label, "copts", ["--split-compile-extended=4"]))

    # CPUs declared: N rounded up to a declared count; 0 the whole machine (more than any has).
    asserts.equals(env, 1, declared_cpus(1))
    asserts.equals(env, 2, declared_cpus(2))
    asserts.equals(env, 6, declared_cpus(5))
    asserts.equals(env, 16, declared_cpus(16))
    asserts.true(env, declared_cpus(0) >= 1024)
    asserts.true(env, declared_cpus(100) >= 1024)

    # Which stages run the threads: cicc from 12.4, ptxas from 13.0 (nvcc's dryrun of each).
    by_mnemonic = {s.mnemonic: s for s in COMPILE_STAGES}
    asserts.true(env, splits_stage(by_mnemonic["CudaCicc"], 4, "12.4"))
    asserts.true(env, splits_stage(by_mnemonic["CudaCicc"], 4, "13.0", "compute_90"))
    asserts.false(env, splits_stage(by_mnemonic["CudaCicc"], 4, "13.0", "compute_100"))
    asserts.true(env, splits_stage(by_mnemonic["CudaPtxas"], 4, "13.0", "sm_100"))
    asserts.false(env, splits_stage(by_mnemonic["CudaPtxas"], 4, "12.4"))
    asserts.true(env, splits_stage(by_mnemonic["CudaPtxas"], 0, "13.0"))
    asserts.true(env, splits_stage(by_mnemonic["CudaPtxas"], 4, "13.5"))
    asserts.false(env, splits_stage(by_mnemonic["CudaCicc"], 1, "13.0"))
    for mnemonic in ("CudaPreprocess", "CudaFrontend", "CudaHostCompile", "CudaEmbedFatbin"):
        asserts.false(env, splits_stage(by_mnemonic[mnemonic], 4, "13.0"), mnemonic)
    return unittest.end(env)

rules_test = unittest.make(_rules_test_impl)

def split_compile_test_suite(name):
    """Tests over tests/cuda_library/BUILD.bazel's split_* targets.

    Args:
      name: the test_suite's name.
    """
    test_suite_of(name, {
        "split_compile_rules_test": (rules_test, {}),
        "split_compile_attribute_test": (plan_options_test, {
            "target_under_test": ":split_attr",
            "expected": ["--split-compile=4"],
        }),
        # The target's copts win over its attribute, and -split-compile N becomes one option.
        "split_compile_copts_test": (plan_options_test, {
            "target_under_test": ":split_copts",
            "expected": ["--split-compile=3"],
        }),
        "split_compile_off_by_default_test": (plan_options_test, {
            "target_under_test": ":split_default",
            "expected": [],
        }),
        "split_compile_flag_test": (plan_options_with_flag_test, {
            "target_under_test": ":split_default",
            "expected": ["--split-compile=6"],
        }),
        # The build's copts win over the flag; the target's attribute over both; 1 is off.
        "split_compile_copts_flag_test": (plan_options_with_flag_and_copts_flag_test, {
            "target_under_test": ":split_default",
            "expected": ["--split-compile=5"],
        }),
        "split_compile_attribute_off_test": (plan_options_with_flag_and_copts_flag_test, {
            "target_under_test": ":split_off",
            "expected": [],
        }),
        "split_compile_unstaged_test": (unstaged_test, {"target_under_test": ":split_unstaged"}),
        "split_compile_bad_copt_test": (failure_test, {
            "target_under_test": ":split_bad_copt",
            "message": "'--split-compile=all' in `copts` is not a thread count. Fix: give a thread count: " +
                       "--@rules_cuda_stages//cuda_rules:split_compile=N",
        }),
        "split_compile_bad_flag_test": (failure_with_flag_test, {
            "target_under_test": ":split_default",
            "message": "--@rules_cuda_stages//cuda_rules:split_compile=-3 is not a thread count",
        }),
    })
