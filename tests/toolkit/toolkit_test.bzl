"""Unit tests of the hermetic toolkit table and wheel selection."""

load("@bazel_skylib//lib:unittest.bzl", "asserts", "unittest")
load("//cuda_rules/private/repo:cuda_versions.bzl", "CUDA_VERSIONS")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:toolkit_repository.bzl", "select_wheels")  # buildifier: disable=bzl-visibility

_PACKAGES = ["nvidia-cuda-nvcc", "nvidia-nvvm", "nvidia-cuda-crt", "nvidia-cuda-runtime", "nvidia-cuda-cccl"]

def _table_test_impl(ctx):
    env = unittest.begin(ctx)
    asserts.true(env, "13.0" in CUDA_VERSIONS, "CUDA 13.0 is in the table")
    asserts.true(env, len(CUDA_VERSIONS) >= 2, "at least two CUDA versions")
    for version, entry in CUDA_VERSIONS.items():
        for platform in ["x86_64", "aarch64"]:
            wheels, error = select_wheels(CUDA_VERSIONS, version, platform)
            asserts.equals(env, None, error)
            asserts.equals(env, sorted(_PACKAGES), sorted([w["package"] for w in wheels]), "packages of {} {}".format(version, platform))
            for w in wheels:
                asserts.equals(env, 64, len(w["sha256"]), "sha256 of " + w["filename"])
                asserts.true(env, w["url"].startswith("https://files.pythonhosted.org/packages/"), w["url"])
                asserts.true(env, w["url"].endswith(w["filename"]), w["url"])
                asserts.true(env, w["version"].startswith(version.split(".")[0] + "."), w["version"])
                asserts.true(env, platform in w["filename"], w["filename"])
        asserts.equals(env, version + ".", entry["packages"]["nvidia-cuda-nvcc"][:len(version) + 1])
    return unittest.end(env)

table_test = unittest.make(_table_test_impl)

def _unknown_version_test_impl(ctx):
    env = unittest.begin(ctx)
    wheels, error = select_wheels(CUDA_VERSIONS, "13.7", "x86_64")
    asserts.equals(env, None, wheels)
    for part in ["unknown CUDA version '13.7'", "13.0", "tools/cuda_wheels/lock.py --add 13.7"]:
        asserts.true(env, part in error, "{} not in: {}".format(part, error))
    return unittest.end(env)

unknown_version_test = unittest.make(_unknown_version_test_impl)

def _missing_platform_test_impl(ctx):
    env = unittest.begin(ctx)
    table = {"13.9": {"packages": {}, "wheels": {"x86_64": [{"package": "nvidia-cuda-nvcc"}]}}}
    wheels, error = select_wheels(table, "13.9", "aarch64")
    asserts.equals(env, None, wheels)
    for part in ["CUDA 13.9 has no wheels for aarch64", "it has: x86_64", "toolkit=local"]:
        asserts.true(env, part in error, "{} not in: {}".format(part, error))
    return unittest.end(env)

missing_platform_test = unittest.make(_missing_platform_test_impl)

def toolkit_test_suite(name):
    """Unit tests of cuda_versions.bzl and select_wheels.

    Args:
      name: the test_suite's name.
    """
    unittest.suite(
        name,
        table_test,
        unknown_version_test,
        missing_platform_test,
    )
