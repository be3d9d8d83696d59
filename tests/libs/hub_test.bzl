"""Tests of the @cuda hub: which repository each toolkit's branch names, and the errors."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts", "unittest")
load("//cuda_rules/private/repo:components.bzl", "CUDA_COMPONENTS", "TOOLKIT_TARGETS")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:cuda_libraries.bzl", "CUDA_LIBRARY_VERSIONS")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:library_repository.bzl", "hub_branches", "hub_targets")  # buildifier: disable=bzl-visibility

def _branches_test_impl(ctx):
    env = unittest.begin(ctx)
    toolkits = {
        "12.4": {"x86_64": "cuda_12_4_x86_64"},
        "13.0": {"aarch64": "cuda_13_0_aarch64", "x86_64": "cuda_13_0_x86_64"},
        "13.5": {"x86_64": "cuda_13_5_x86_64"},
        "local": {"x86_64": "cuda_local"},
    }

    # 13.5's table lacks cuDNN here, and Debian has none for 12.4: their branches are failing targets.
    libraries = {
        "12.4": {"x86_64": {"cublas": "cuda_12_4_x86_64_cublas"}},
        "13.0": {
            "aarch64": {"cublas": "cuda_13_0_aarch64_cublas"},
            "x86_64": {"cublas": "cuda_13_0_x86_64_cublas", "cudnn": "cuda_13_0_x86_64_cudnn"},
        },
        "13.5": {"x86_64": {"cublas": "cuda_13_5_x86_64_cublas"}},
    }
    branches = hub_branches(toolkits, libraries, {"12.4": "debs", "13.0": "wheels", "13.5": "wheels", "local": "local"})
    asserts.equals(env, "@cuda_13_0_x86_64_cublas//:cublasLt", branches["cublasLt"]["13.0"]["x86_64"])
    asserts.equals(env, "@cuda_13_0_aarch64_cublas//:cublasLt", branches["cublasLt"]["13.0"]["aarch64"], "each platform its own repository")
    asserts.equals(env, "@cuda_local//:cublas", branches["cublas"]["local"]["x86_64"])
    asserts.equals(env, "@cuda_13_5_x86_64//:thrust", branches["thrust"]["13.5"]["x86_64"])
    asserts.equals(env, "@cuda_13_0_x86_64//:nvtx", branches["nvtx"]["13.0"]["x86_64"], "in-toolkit components come from the toolkit")
    asserts.equals(env, "@cuda_12_4_x86_64_cublas//:cublas", branches["cublas"]["12.4"]["x86_64"])
    missing = branches["cudnn"]["13.5"]["x86_64"]
    for part in ["@cuda//:cudnn", "CUDA 13.5", "toolkit=13.5", "x86_64", "lock.py 13.5"]:
        asserts.true(env, part in missing.missing, "{} not in: {}".format(part, missing.missing))
    missing = branches["cudnn"]["12.4"]["x86_64"]
    for part in ["@cuda//:cudnn", "not available for CUDA 12.4", "Debian does not package cudnn", "toolkit=local"]:
        asserts.true(env, part in missing.missing, "{} not in: {}".format(part, missing.missing))

    # rules_cuda's names are all there.
    names = hub_targets()
    for name in [
        "cuda_runtime",
        "cuda_runtime_static",
        "cuda_headers",
        "thrust",
        "cub",
        "libcudacxx",
        "cccl",
        "cuda",
        "cuda_driver",
        "nvtx",
        "cublas",
        "cublasLt",
        "cufft",
        "curand",
        "cusparse",
        "cusolver",
        "nvjitlink",
        "nvrtc",
        "cupti",
        "nvperf_host",
        "nvperf_target",
        "npp",
        "nppc",
        "nppi",
        "npps",
        "nccl",
        "cudnn",
        "nvml",
        "nvptxcompiler",
        "nvjpeg",
    ]:
        asserts.true(env, name in names, name + " is a target of @cuda")
    asserts.equals(env, sorted(names), names)
    for name in TOOLKIT_TARGETS:
        asserts.true(env, name in names)
    return unittest.end(env)

branches_test = unittest.make(_branches_test_impl)

def _table_test_impl(ctx):
    env = unittest.begin(ctx)
    for version, entry in CUDA_LIBRARY_VERSIONS.items():
        asserts.true(env, entry["meta"].startswith("cuda-toolkit " + version + "."), entry["meta"])
        asserts.equals(env, sorted(CUDA_COMPONENTS.keys()), sorted(entry["components"].keys()), "components of " + version)
        for component, c in entry["components"].items():
            for platform in ["x86_64", "aarch64"]:
                archives = c["archives"].get(platform, [])
                asserts.true(env, len(archives) >= 1, "{} {} {}".format(version, component, platform))
                for a in archives:
                    asserts.equals(env, 64, len(a["sha256"]))
                    asserts.true(env, a["url"].startswith("https://files.pythonhosted.org/packages/"), a["url"])
                    asserts.true(env, platform in a["filename"], a["filename"])
    return unittest.end(env)

table_test = unittest.make(_table_test_impl)

def _fails_test_impl(ctx):
    env = analysistest.begin(ctx)
    for part in ctx.attr.expected:
        asserts.expect_failure(env, part)
    return analysistest.end(env)

fails_test = analysistest.make(
    _fails_test_impl,
    expect_failure = True,
    attrs = {"expected": attr.string_list()},
)

fails_with_local_toolkit_test = analysistest.make(
    _fails_test_impl,
    expect_failure = True,
    attrs = {"expected": attr.string_list()},
    config_settings = {str(Label("//cuda_rules:toolkit")): "local"},
)

def hub_test_suite(name):
    """The @cuda hub's tests.

    Args:
      name: the test_suite's name.
    """
    unittest.suite(name + "_unit", branches_test, table_test)

    # The local toolkit here (/usr/local/cuda, from wheels) has no cuBLAS; with
    # no local toolkit at all, the message names the label too.
    fails_with_local_toolkit_test(
        name = name + "_local_lacks_cublas",
        target_under_test = "@cuda//:cublas",
        expected = ["@cuda//:cublas", "local"],
    )
    native.test_suite(name = name, tests = [name + "_unit", name + "_local_lacks_cublas"])
