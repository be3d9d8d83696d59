"""clang as the CUDA compiler: what it does not compile fails analysis in one line, naming the fix."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")

_COMPILER = str(Label("//cuda_rules:compiler"))
_HOST_CLANG = str(Label("//tests/host_clang:clang"))
_CLANG22 = str(Label("//tests/clang:clang22"))
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

_CLANG22_MODE = {_COMPILER: "clang", _CLANG22: True}

# clang 22 with CUDA 12.4: not a supported pair (clang 22's is 13.0).
clang22_cuda12_failure_test = _failure_test(dict(_CLANG22_MODE, **{_TOOLKIT: "12.4"}))

# clang 22 with CUDA 13.0, a supported pair, and what clang does not compile in stages.
clang22_failure_test = _failure_test(dict(_CLANG22_MODE, **{_TOOLKIT: "13.0"}))

def _wrapper_headers_test_impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    devices = [a for a in analysistest.target_actions(env) if a.mnemonic == "CudaClangDevice"]
    asserts.true(env, devices, "no CudaClangDevice action")
    for action in devices:
        names = [f.basename for f in action.inputs.to_list()]
        asserts.true(env, "curand_mtgp32_kernel.h" in names, "CudaClangDevice does not read curand_mtgp32_kernel.h (clang's CUDA wrapper includes it)")

    # The compiler's own headers are the target's compile's, not its dependents'.
    public = [f.basename for f in target[CcInfo].compilation_context.headers.to_list()]
    asserts.false(env, "curand_mtgp32_kernel.h" in public, "cuRAND's headers reach the target's dependents")
    return analysistest.end(env)

# clang 22 with CUDA 13.0: clang's CUDA wrapper includes curand_mtgp32_kernel.h,
# which CUDA 13's wheels ship outside the toolkit (@cuda//:curand_headers).
clang22_wrapper_headers_test = analysistest.make(
    _wrapper_headers_test_impl,
    config_settings = dict(_CLANG22_MODE, **{_TOOLKIT: "13.0"}),
)
