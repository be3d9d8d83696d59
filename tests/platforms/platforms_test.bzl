"""Toolchain resolution of the CUDA toolkits by platform: which toolkit's files a target's actions read."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//tests/common:analysis.bzl", "STAGED_MNEMONICS")

_PLATFORMS = "//command_line_option:platforms"
_EXEC_PLATFORMS = "//command_line_option:extra_execution_platforms"
_TOOLCHAINS = "//command_line_option:extra_toolchains"

def _toolkit_repos(files):
    """The toolkit repositories (cuda_<v>_<platform>, cuda_local) whose files are in `files`."""
    out = {}
    for f in files:
        if f.owner and f.owner.workspace_name and ("cuda_1" in f.owner.workspace_name or "cuda_local" in f.owner.workspace_name):
            out[f.owner.workspace_name.rpartition("~")[2].rpartition("+")[2]] = True
    return sorted(out.keys())

def _reads_only(env, toolkit):
    """Every CUDA stage action reads files of `toolkit` and of no other toolkit."""
    actions = [a for a in analysistest.target_actions(env) if a.mnemonic in STAGED_MNEMONICS]
    asserts.true(env, len(actions) >= 6, "CUDA actions: {}".format([a.mnemonic for a in actions]))
    for action in actions:
        asserts.equals(env, [toolkit], _toolkit_repos(action.inputs.to_list()), "toolkits read by " + action.mnemonic)

def _aarch64_test_impl(ctx):
    env = analysistest.begin(ctx)
    _reads_only(env, "cuda_13_0_aarch64")
    plan = [a for a in analysistest.target_actions(env) if a.mnemonic == "CudaPlan"][0]
    nvcc = [a for a in plan.argv if a.startswith("--nvcc=")]
    asserts.equals(env, 1, len(nvcc))
    asserts.true(env, "cuda_13_0_aarch64/bin/nvcc" in nvcc[0], nvcc[0])
    return analysistest.end(env)

# A Grace target built on Grace workers: the aarch64 toolkit.
aarch64_test = analysistest.make(
    _aarch64_test_impl,
    config_settings = {
        _PLATFORMS: str(Label("//tests/platforms:linux_aarch64")),
        _EXEC_PLATFORMS: [str(Label("//tests/platforms:linux_aarch64"))],
        _TOOLCHAINS: [str(Label("//tests/platforms:aarch64_gcc"))],
    },
)

def _x86_64_test_impl(ctx):
    env = analysistest.begin(ctx)
    _reads_only(env, "cuda_13_0_x86_64")
    return analysistest.end(env)

# An aarch64 execution platform comes first, but the target is x86-64: the
# x86-64 toolkit (on the x86-64 platform), since the aarch64 one's libraries
# are aarch64's.
x86_64_test = analysistest.make(
    _x86_64_test_impl,
    config_settings = {
        _PLATFORMS: str(Label("//tests/platforms:linux_x86_64")),
        _EXEC_PLATFORMS: [str(Label("//tests/platforms:linux_aarch64")), str(Label("//tests/platforms:linux_x86_64"))],
        _TOOLCHAINS: [str(Label("//tests/platforms:aarch64_gcc"))],
    },
)

def _cuda12_aarch64_test_impl(ctx):
    env = analysistest.begin(ctx)
    _reads_only(env, "cuda_12_4_aarch64")
    return analysistest.end(env)

cuda12_aarch64_test = analysistest.make(
    _cuda12_aarch64_test_impl,
    config_settings = {
        _PLATFORMS: str(Label("//tests/platforms:linux_aarch64")),
        _EXEC_PLATFORMS: [str(Label("//tests/platforms:linux_aarch64"))],
        _TOOLCHAINS: [str(Label("//tests/platforms:aarch64_gcc"))],
        str(Label("//cuda_rules:toolkit")): "12.4",
    },
)

def _local_test_impl(ctx):
    env = analysistest.begin(ctx)
    _reads_only(env, "cuda_local")
    return analysistest.end(env)

local_test = analysistest.make(
    _local_test_impl,
    config_settings = {str(Label("//cuda_rules:toolkit")): "local"},
)

def _fails_test_impl(ctx):
    env = analysistest.begin(ctx)
    for part in ctx.attr.expected:
        asserts.expect_failure(env, part)
    return analysistest.end(env)

# Cross compilation, x86-64 building for aarch64: no toolkit runs on x86-64
# and builds for aarch64 (a toolkit's libraries are its own platform's).
cross_fails_test = analysistest.make(
    _fails_test_impl,
    expect_failure = True,
    attrs = {"expected": attr.string_list()},
    config_settings = {
        _PLATFORMS: str(Label("//tests/platforms:linux_aarch64")),
        _TOOLCHAINS: [str(Label("//tests/platforms:x86_64_to_aarch64_gcc"))],
    },
)

def _hub_test_impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    libraries = [
        lib.static_library.path
        for linker_input in target[CcInfo].linking_context.linker_inputs.to_list()
        for lib in linker_input.libraries
        if lib.static_library
    ]
    asserts.true(env, len(libraries) >= 1, "static libraries: {}".format(libraries))
    for path in libraries:
        asserts.true(env, "cuda_13_0_aarch64/" in path, path)
    return analysistest.end(env)

# @cuda//:cuda_runtime for an aarch64 target: the aarch64 toolkit's runtime.
hub_aarch64_test = analysistest.make(
    _hub_test_impl,
    config_settings = {
        _PLATFORMS: str(Label("//tests/platforms:linux_aarch64")),
        _EXEC_PLATFORMS: [str(Label("//tests/platforms:linux_aarch64"))],
        _TOOLCHAINS: [str(Label("//tests/platforms:aarch64_gcc"))],
    },
)

def platforms_test_suite(name):
    """Analysis tests of toolkit selection by platform.

    Args:
      name: the test_suite's name.
    """
    aarch64_test(name = name + "_aarch64", target_under_test = ":kernel")
    x86_64_test(name = name + "_x86_64_first_exec_aarch64", target_under_test = ":kernel")

    # Manual: it fetches 12.4's aarch64 packages (1 GB), which CI otherwise never needs.
    cuda12_aarch64_test(name = name + "_cuda12_aarch64", target_under_test = ":kernel", tags = ["manual"])
    local_test(name = name + "_local", target_under_test = ":kernel")
    cross_fails_test(
        name = name + "_cross_fails",
        target_under_test = ":kernel",
        expected = [
            "//tests/platforms:kernel: no CUDA toolkit for the target platform",
            "//tests/platforms:linux_aarch64",
            "13.0: aarch64 (@cuda_13_0_aarch64), x86_64 (@cuda_13_0_x86_64)",
            "--extra_execution_platforms",
        ],
    )
    hub_aarch64_test(name = name + "_hub_aarch64", target_under_test = "@cuda//:cuda_runtime")
    native.test_suite(name = name, tests = [
        name + "_aarch64",
        name + "_x86_64_first_exec_aarch64",
        name + "_local",
        name + "_cross_fails",
        name + "_hub_aarch64",
    ])
