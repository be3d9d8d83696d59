"""clang as the CUDA compiler: what it does not compile fails analysis in one line, naming the fix."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

_COMPILER = str(Label("//cuda_rules:compiler"))
_HOST_CLANG = str(Label("//tests/host_clang:clang"))
_TOOLKIT = str(Label("//cuda_rules:toolkit"))
_DEVICE_DEBUG = str(Label("//cuda_rules:device_debug"))

def _failure_test_impl(ctx):
    env = analysistest.begin(ctx)
    for text in ctx.attr.messages:
        asserts.expect_failure(env, text)
    causes = analysistest.target_under_test(env)[AnalysisFailureInfo].causes.to_list()
    asserts.true(env, causes, "no analysis failure")
    for cause in causes:
        message = cause.message.strip().rpartition("Error in fail: ")[2]
        asserts.false(env, "\n" in message, "the message has more than one line:\n" + message)
    return analysistest.end(env)

def _failure_test(settings):
    return analysistest.make(
        _failure_test_impl,
        expect_failure = True,
        config_settings = settings,
        attrs = {"messages": attr.string_list(doc = "Substrings of the failure.")},
    )

_CLANG = {_COMPILER: "clang", _HOST_CLANG: True}

# clang 21 with CUDA 13.0: not a supported pair.
clang_cuda13_failure_test = _failure_test(dict(_CLANG, **{_TOOLKIT: "13.0"}))

# A C++ toolchain whose compiler is not clang.
clang_gcc_failure_test = _failure_test({_COMPILER: "clang", _TOOLKIT: "12.4"})

# A supported pair, and what clang does not compile in stages yet.
clang_failure_test = _failure_test(dict(_CLANG, **{_TOOLKIT: "12.4"}))

# Device debugging (nvcc's -G).
clang_device_debug_failure_test = _failure_test(dict(_CLANG, **{_TOOLKIT: "12.4", _DEVICE_DEBUG: ["//tests/clang/..."]}))
