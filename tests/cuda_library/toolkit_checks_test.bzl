"""Archs the selected toolkit does not build, and nvcc options the planner does not know, fail analysis in one line."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts", "unittest")
load("//cuda_rules/private:extension.bzl", "DEFAULT_TOOLKIT")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private:nvcc_option_table.bzl", "CASES", "NVCC_VERSIONS")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private:nvcc_options.bzl", "known_nvcc_options", "unknown_options")  # buildifier: disable=bzl-visibility
load("//tests/common:analysis.bzl", "ARCHS_SETTING", "only_action")
load("//tests/common:suite.bzl", "test_suite_of")

_COPTS_SETTING = str(Label("//cuda_rules:copts"))

def _one_line_failure_test_impl(ctx):
    env = analysistest.begin(ctx)
    for text in ctx.attr.messages:
        asserts.expect_failure(env, text.replace("{version}", DEFAULT_TOOLKIT))
    causes = analysistest.target_under_test(env)[AnalysisFailureInfo].causes.to_list()
    asserts.true(env, causes, "no analysis failure")
    for cause in causes:
        # Bazel puts the Starlark stack above the message: the message is what follows "Error in fail: ".
        message = cause.message.strip().rpartition("Error in fail: ")[2]
        asserts.false(env, "\n" in message, "the message has more than one line:\n" + message)
        for banned in ctx.attr.never:
            asserts.false(env, banned in message, "the message holds '{}': {}".format(banned, message))
    return analysistest.end(env)

def _failure_test(config_settings = {}):
    return analysistest.make(
        _one_line_failure_test_impl,
        expect_failure = True,
        config_settings = config_settings,
        attrs = {
            "messages": attr.string_list(doc = "Substrings of the failure ({version}: the default toolkit's)."),
            "never": attr.string_list(doc = "Substrings the failure must not hold (an nvcc command line)."),
        },
    )

failure_test = _failure_test()
failure_with_archs_flag_test = _failure_test({ARCHS_SETTING: "sm_50,sm_90"})
failure_with_copts_flag_test = _failure_test({_COPTS_SETTING: ["-O3", "--bogus-build-option"]})

def _analyses_test_impl(ctx):
    env = analysistest.begin(ctx)
    only_action(env, ctx.attr.mnemonic)
    return analysistest.end(env)

analyses_test = analysistest.make(_analyses_test_impl, attrs = {"mnemonic": attr.string()})

def _cases_test_impl(ctx):
    env = unittest.begin(ctx)

    # The same cases tools/nvcc_plan/nvcc_options.py checks, with the same verdicts.
    asserts.true(env, len(CASES) >= 10, "cases: {}".format(len(CASES)))
    known = known_nvcc_options("13.0")
    for options, expected in CASES:
        asserts.equals(env, expected, unknown_options(options, known), "unknown_options({})".format(options))

    # A version the table lacks gets every version's options; each table version its own.
    asserts.true(env, "13.0" in NVCC_VERSIONS)
    asserts.true(env, len(known_nvcc_options("99.9")) >= len(known))
    return unittest.end(env)

cases_test = unittest.make(_cases_test_impl)

_NO_COMMAND_LINE = ["-ccbin", "--dryrun", "-gencode"]

def toolkit_checks_test_suite(name):
    """Analysis tests over tests/cuda_library/BUILD.bazel's targets with unsupported archs or unknown options.

    Args:
      name: the test_suite's name.
    """
    test_suite_of(name, {
        "nvcc_option_cases_test": (cases_test, {}),
        "unsupported_arch_attribute_test": (failure_test, {
            "target_under_test": ":unsupported_arch",
            "messages": [
                "//tests/cuda_library:unsupported_arch: sm_50 (the `archs` attribute) is not built by CUDA {version}, " +
                "whose nvcc builds sm_",
                "Fix: choose archs CUDA {version} builds, or select a CUDA version that builds sm_50",
            ],
            "never": _NO_COMMAND_LINE,
        }),
        "unsupported_arch_flag_test": (failure_with_archs_flag_test, {
            "target_under_test": ":no_archs_attribute",
            "messages": ["sm_50 (--@rules_cuda_stages//cuda_rules:archs=sm_50,sm_90) is not built by CUDA {version}"],
            "never": _NO_COMMAND_LINE,
        }),
        "arch_variants_analyse_test": (analyses_test, {"target_under_test": ":arch_variants", "mnemonic": "CudaPlan"}),
        "unsupported_arch_without_cu_analyses_test": (analyses_test, {
            "target_under_test": ":unsupported_arch_without_cu",
            "mnemonic": "CppCompile",
        }),
        "unknown_copt_test": (failure_test, {
            "target_under_test": ":unknown_copt",
            "messages": [
                "//tests/cuda_library:unknown_copt: '--not-an-nvcc-option' in `copts` is not an option of CUDA {version}'s nvcc",
                "Fix: correct it",
                "set staged = False",
            ],
            "never": _NO_COMMAND_LINE,
        }),
        "copt_without_value_test": (failure_test, {
            "target_under_test": ":copt_without_value",
            "messages": ["'-lineinfo=1' in `copts` is not valid for CUDA {version}'s nvcc: it takes no value"],
            "never": _NO_COMMAND_LINE,
        }),
        "unknown_copts_flag_test": (failure_with_copts_flag_test, {
            "target_under_test": ":no_archs_attribute",
            "messages": ["'--bogus-build-option' in `--@rules_cuda_stages//cuda_rules:copts` is not an option of CUDA {version}'s nvcc"],
            "never": _NO_COMMAND_LINE,
        }),
        # One nvcc action: nvcc judges its own options, no planner is involved.
        "unknown_copt_unstaged_analyses_test": (analyses_test, {"target_under_test": ":unknown_copt_unstaged", "mnemonic": "CudaCompile"}),
        # Options nvcc forwards to the host compiler with -forward-unknown-to-host-compiler.
        "forwarded_copt_analyses_test": (analyses_test, {"target_under_test": ":forwarded_copt", "mnemonic": "CudaPlan"}),
    })
