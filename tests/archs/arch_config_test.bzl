"""Tests of the arch configuration: the shipped set, the build's archs, native, and the pinned __CUDA_ARCH_LIST__."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts", "unittest")

# Private files, loaded by tests on purpose: their visibility() allows //tests/...
# buildifier: disable=bzl-visibility
load("//cuda_rules/private:archs.bzl", "arch_list", "outside_shipped", "parse_archs", "pinned_arch_list")

# buildifier: disable=bzl-visibility
load("//cuda_rules/private:extension.bzl", "DEFAULT_SHIPPED_ARCHS", "shipped_archs_from_tags")

# buildifier: disable=bzl-visibility
load("//cuda_rules/private:providers.bzl", "CudaArchConfigInfo")

# buildifier: disable=bzl-visibility
load("//cuda_rules/private:rules/arch_config.bzl", "resolve_arch_config")
load("//tests/common:suite.bzl", "test_suite_of")

_ARCHS_SETTING = str(Label("//cuda_rules:archs"))
_SHIPPED_SETTING = str(Label("//cuda_rules:shipped_archs"))
CI = "sm_75,sm_80,sm_86,sm_90,compute_90"
CI_LIST = "750,800,860,900"

def _reals(archs):
    return [r for v in archs.virtuals for r in v.reals]

# Pure functions -----------------------------------------------------------------

def _pinned_arch_list_test_impl(ctx):
    env = unittest.begin(ctx)
    ci = parse_archs(CI, "ci")
    asserts.equals(env, CI_LIST, arch_list(ci))
    for subset in ["sm_90", "sm_80,sm_90", "compute_90", "sm_75", "compute_90:sm_90", CI]:
        asserts.equals(env, CI_LIST, pinned_arch_list(parse_archs(subset, "t"), ci), subset)
        asserts.equals(env, [], outside_shipped(parse_archs(subset, "t"), ci), subset)
    for outside, names in [("sm_89", ["compute_89"]), ("sm_89,sm_90", ["compute_89"]), ("sm_90a", ["compute_90a"]), ("sm_100,sm_120", ["compute_100", "compute_120"])]:
        asserts.equals(env, "", pinned_arch_list(parse_archs(outside, "t"), ci), outside)
        asserts.equals(env, names, outside_shipped(parse_archs(outside, "t"), ci), outside)

    # A real arch built from a shipped virtual arch: its stages before ptxas are the shipped set's.
    asserts.equals(env, CI_LIST, pinned_arch_list(parse_archs("compute_80:sm_89", "t"), ci))

    # Suffixed archs count as 900 in the list, as nvcc counts them.
    asserts.equals(env, "800,900", arch_list(parse_archs("sm_80,sm_90a", "t")))
    return unittest.end(env)

pinned_arch_list_test = unittest.make(_pinned_arch_list_test_impl)

def _resolve_test_impl(ctx):
    env = unittest.begin(ctx)

    # The default: the shipped set, its own list.
    c = resolve_arch_config("shipped", CI, None)
    asserts.equals(env, None, c.error)
    asserts.equals(env, ["sm_75", "sm_80", "sm_86", "sm_90"], _reals(c.archs))
    asserts.equals(env, CI_LIST, c.pinned_arch_list)
    asserts.equals(env, "", c.notice)

    # A subset: the shipped set's list, nothing to say.
    c = resolve_arch_config("sm_90", CI, None)
    asserts.equals(env, ["sm_90"], _reals(c.archs))
    asserts.equals(env, CI_LIST, c.pinned_arch_list)
    asserts.equals(env, "", c.notice)

    # Outside: its own list, and why, once.
    c = resolve_arch_config("sm_89,sm_90", CI, None)
    asserts.equals(env, "", c.pinned_arch_list)
    for part in ["compiles compute_89, outside the shipped set (" + CI, "own __CUDA_ARCH_LIST__ (890,900)", "will not reuse CI's cached stages", "Fix: choose archs from the shipped set"]:
        asserts.true(env, part in c.notice, "notice lacks '{}': {}".format(part, c.notice))

    # clang defines no __CUDA_ARCH_LIST__: archs outside the shipped set reuse CI's stages, no notice.
    c = resolve_arch_config("sm_89,sm_90", CI, None, "clang")
    asserts.equals(env, "", c.notice)

    # native, GPUs found: compiled for them, pinned when they are shipped.
    c = resolve_arch_config("native", CI, {"archs": ["sm_86", "sm_90"], "source": "driver", "reasons": []})
    asserts.equals(env, ["sm_86", "sm_90"], _reals(c.archs))
    asserts.equals(env, CI_LIST, c.pinned_arch_list)
    asserts.equals(env, "", c.notice)
    asserts.true(env, "this machine's GPUs: sm_86,sm_90, from driver" in c.archs_origin, c.archs_origin)
    c = resolve_arch_config("native", CI, {"archs": ["sm_89"], "source": "nvidia-smi", "reasons": ["driver: x"]})
    asserts.equals(env, ["sm_89"], _reals(c.archs))
    asserts.equals(env, "", c.pinned_arch_list)
    asserts.true(env, "compute_89, outside the shipped set" in c.notice, c.notice)

    # native, no GPU: the shipped set, and why.
    c = resolve_arch_config("native", CI, {"archs": [], "source": "", "reasons": ["driver: no NVIDIA driver", "nvidia-smi: nvidia-smi is not on PATH"]})
    asserts.equals(env, ["sm_75", "sm_80", "sm_86", "sm_90"], _reals(c.archs))
    asserts.equals(env, CI_LIST, c.pinned_arch_list)
    for part in ["=native found no GPU to compile for (driver: no NVIDIA driver; nvidia-smi: nvidia-smi is not on PATH)", "compiles the shipped set (" + CI + ")", "Fix: choose archs explicitly, e.g. --@rules_cuda_stages//cuda_rules:archs=sm_90"]:
        asserts.true(env, part in c.notice, "notice lacks '{}': {}".format(part, c.notice))

    # rules_cuda's form on both sides.
    c = resolve_arch_config("compute_90:sm_90", "compute_75:sm_75;compute_80:sm_80;compute_86:sm_86;compute_90:sm_90,compute_90", None)
    asserts.equals(env, CI_LIST, c.pinned_arch_list)

    # Errors name the setting and the fix.
    c = resolve_arch_config("sm_90", "sm_9", None)
    asserts.true(env, c.error != None and "'sm_9'" in c.error and "cuda.archs(shipped = ...)" in c.error and "--@rules_cuda_stages//cuda_rules:shipped_archs" in c.error, c.error)
    c = resolve_arch_config("90", CI, None)
    asserts.true(env, c.error != None and "--@rules_cuda_stages//cuda_rules:archs" in c.error and "=shipped" in c.error and "=native" in c.error, c.error)
    return unittest.end(env)

resolve_test = unittest.make(_resolve_test_impl)

def _tags(*mods):
    return [struct(name = name, is_root = root, shipped = shipped) for name, root, shipped in mods]

def _shipped_from_tags_test_impl(ctx):
    env = unittest.begin(ctx)

    # No tag: the rules' default.
    s = shipped_archs_from_tags(_tags(("app", True, []), ("rules_cuda_stages", False, [])))
    asserts.equals(env, (DEFAULT_SHIPPED_ARCHS, None), (s.archs, s.error))
    asserts.true(env, "declares no cuda.archs" in s.origin, s.origin)

    # The root module's tag; another module's is ignored.
    s = shipped_archs_from_tags(_tags(("lib", False, ["sm_70"]), ("app", True, ["sm_80,sm_90"])))
    asserts.equals(env, ("sm_80,sm_90", None), (s.archs, s.error))
    asserts.true(env, "root MODULE.bazel (app)" in s.origin, s.origin)
    s = shipped_archs_from_tags(_tags(("app", True, []), ("lib", False, ["sm_70"])))
    asserts.equals(env, DEFAULT_SHIPPED_ARCHS, s.archs)

    # Two tags in the root module: an error naming both.
    s = shipped_archs_from_tags(_tags(("app", True, ["sm_80", "sm_90"])))
    asserts.true(env, s.error != None and "shipped = \"sm_80\" and shipped = \"sm_90\"" in s.error and "app" in s.error, s.error)

    # A bad string: an error naming the tag and the fix.
    s = shipped_archs_from_tags(_tags(("app", True, ["sm_80,sm90"])))
    asserts.true(env, s.error != None and "'sm90'" in s.error and "cuda.archs(shipped = ...)" in s.error and "Fix" in s.error, s.error)
    return unittest.end(env)

shipped_from_tags_test = unittest.make(_shipped_from_tags_test_impl)

# //cuda_rules:arch_config itself ---------------------------------------------------

def _config(env):
    return analysistest.target_under_test(env)[CudaArchConfigInfo]

def _config_subset_test_impl(ctx):
    env = analysistest.begin(ctx)
    c = _config(env)
    asserts.equals(env, ["sm_80", "sm_90"], _reals(c.archs))
    asserts.equals(env, CI_LIST, c.pinned_arch_list)
    asserts.equals(env, "", c.notice)
    return analysistest.end(env)

config_subset_test = analysistest.make(
    _config_subset_test_impl,
    config_settings = {_ARCHS_SETTING: "sm_80,sm_90", _SHIPPED_SETTING: CI},
)

def _config_default_is_module_tag_test_impl(ctx):
    env = analysistest.begin(ctx)
    c = _config(env)

    # This repository's MODULE.bazel: cuda.archs(shipped = CI's set).
    asserts.equals(env, CI, c.shipped_spec)
    asserts.true(env, "cuda.archs(shipped = \"" + CI + "\") in the root MODULE.bazel" in c.shipped_origin, c.shipped_origin)
    asserts.equals(env, ["sm_75", "sm_80", "sm_86", "sm_90"], _reals(c.archs))
    asserts.equals(env, CI_LIST, c.pinned_arch_list)
    return analysistest.end(env)

config_default_is_module_tag_test = analysistest.make(_config_default_is_module_tag_test_impl)

def _config_outside_test_impl(ctx):
    env = analysistest.begin(ctx)
    c = _config(env)
    asserts.equals(env, "", c.pinned_arch_list)
    asserts.true(env, "compiles compute_89, outside the shipped set" in c.notice, c.notice)
    return analysistest.end(env)

config_outside_test = analysistest.make(
    _config_outside_test_impl,
    config_settings = {_ARCHS_SETTING: "sm_89,sm_90"},
)

def _config_native_test_impl(ctx):
    env = analysistest.begin(ctx)
    c = _config(env)

    # This machine, for real (@cuda_native_archs ran tools/detect_gpus):
    # either its GPUs, or the shipped set and a message saying why.
    if c.notice and "found no GPU" in c.notice:
        asserts.equals(env, c.shipped_spec, c.notice.split("compiles the shipped set (")[1].split(")")[0])
        asserts.equals(env, _reals(c.shipped), _reals(c.archs))
        asserts.true(env, "Fix: choose archs explicitly" in c.notice, c.notice)
    else:
        asserts.true(env, "this machine's GPUs" in c.archs_origin, c.archs_origin)
    return analysistest.end(env)

config_native_test = analysistest.make(
    _config_native_test_impl,
    config_settings = {_ARCHS_SETTING: "native"},
)

def _config_bad_shipped_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "'sm_8x'")
    asserts.expect_failure(env, "--@rules_cuda_stages//cuda_rules:shipped_archs")
    asserts.expect_failure(env, "Fix: correct the shipped set")
    return analysistest.end(env)

config_bad_shipped_test = analysistest.make(
    _config_bad_shipped_test_impl,
    expect_failure = True,
    config_settings = {_SHIPPED_SETTING: "sm_80,sm_8x"},
)

def arch_config_test_suite(name):
    """Tests of the arch configuration, and a test_suite of them.

    Args:
      name: the test_suite's name.
    """
    config = {"target_under_test": "//cuda_rules:arch_config"}
    test_suite_of(name, {
        "arch_config_bad_shipped_test": (config_bad_shipped_test, config),
        "arch_config_default_is_module_tag_test": (config_default_is_module_tag_test, config),
        "arch_config_native_test": (config_native_test, config),
        "arch_config_outside_test": (config_outside_test, config),
        "arch_config_resolve_test": (resolve_test, {}),
        "arch_config_subset_test": (config_subset_test, config),
        "pinned_arch_list_test": (pinned_arch_list_test, {}),
        "shipped_archs_from_tags_test": (shipped_from_tags_test, {}),
    })
