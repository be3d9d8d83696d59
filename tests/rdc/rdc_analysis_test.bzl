"""Analysis tests of relocatable device code: rdc stages, LTO archs, and cuda_device_link's actions and errors."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//cuda_rules:providers.bzl", "CudaInfo")
load("//tests/common:analysis.bzl", "layouts_of")
load("//tests/common:suite.bzl", "test_suite_of")

def _lto_without_rdc_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "lto_without_rdc: LTO archs (lto_90)")
    asserts.expect_failure(env, "set rdc = True")
    return analysistest.end(env)

lto_without_rdc_test = analysistest.make(_lto_without_rdc_test_impl, expect_failure = True)

def _rdc_stages_test_impl(ctx):
    env = analysistest.begin(ctx)

    # The source's layout; the library's device link writes one too.
    layouts = [layout for layout in layouts_of(env) if "src" in layout]
    asserts.equals(env, 1, len(layouts))
    layout = layouts[0]
    asserts.true(env, layout["rdc"], "layout says rdc")
    asserts.equals(env, ["compute_90"], [a["virtual"] for a in layout["archs"] if a["lto"]])
    asserts.true(env, layout["files"]["ptx/compute_90"].endswith("compute_90/kernel.ltoir"), layout["files"]["ptx/compute_90"])
    asserts.true(env, "device_object" in layout["scripts"], "a device_object script is planned")
    plans = [a for a in analysistest.target_actions(env) if a.mnemonic == "CudaPlan" and "compile" in a.argv]
    asserts.equals(env, 1, len(plans), "CudaPlan actions of sources")
    asserts.true(env, plans and "-rdc=true" in plans[0].argv, "nvcc is planned with -rdc=true")

    # LTO arch compute_90: its cicc makes NVVM IR, and no ptxas runs for it.
    ptxas = [a for a in analysistest.target_actions(env) if a.mnemonic == "CudaPtxas"]
    asserts.equals(env, ["sm_80"], sorted([a.outputs.to_list()[0].dirname.rpartition("/")[2] for a in ptxas]))
    info = analysistest.target_under_test(env)[CudaInfo]
    asserts.true(env, info.rdc)
    asserts.equals(
        env,
        [("sm_80", "elf", "kernel.cubin"), ("sm_90", "nvvm", "kernel.ltoir")],
        sorted([(i.arch, i.code, i.image.basename) for i in info.device_link_inputs]),
    )
    return analysistest.end(env)

rdc_stages_test = analysistest.make(_rdc_stages_test_impl)

def _device_link_actions_test_impl(ctx):
    env = analysistest.begin(ctx)
    actions = analysistest.target_actions(env)
    links = [a for a in actions if a.mnemonic == "CudaDeviceLink"]
    asserts.equals(env, 2, len(links), "one CudaDeviceLink per real arch")
    by_arch = {}
    for a in links:
        arch = a.outputs.to_list()[0].dirname.rpartition("/")[2]
        by_arch[arch] = sorted([f.basename for f in a.inputs.to_list() if f.extension in ("cubin", "ltoir")])

    # Each arch's link reads only that arch's code of the two sources.
    asserts.equals(env, {"sm_80": ["kernel.cubin", "other_kernel.cubin"], "sm_90": ["kernel.cubin", "other_kernel.cubin"]}, by_arch)
    for a in links:
        cubins = [f.path for f in a.inputs.to_list() if f.extension == "cubin"]
        arch = a.outputs.to_list()[0].dirname.rpartition("/")[2]
        asserts.true(env, all(["/" + arch + "/" in p for p in cubins]), "{} reads {}".format(arch, cubins))
    asserts.equals(env, 1, len([a for a in actions if a.mnemonic == "CudaFatbinary"]))
    asserts.equals(env, 1, len([a for a in actions if a.mnemonic == "CudaLinkStub"]))
    return analysistest.end(env)

device_link_actions_test = analysistest.make(_device_link_actions_test_impl)

def _device_link_nothing_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.equals(env, [], [a.mnemonic for a in analysistest.target_actions(env)], "no rdc code below: no actions")
    return analysistest.end(env)

device_link_nothing_test = analysistest.make(_device_link_nothing_test_impl)

def _device_link_arch_mismatch_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "cannot device-link sm_80")
    asserts.expect_failure(env, "rdc_sm90_only has no code for it")
    return analysistest.end(env)

device_link_arch_mismatch_test = analysistest.make(_device_link_arch_mismatch_test_impl, expect_failure = True)

def rdc_analysis_test_suite(name):
    """Analysis tests of rdc libraries and device links over the manual targets of tests/rdc/BUILD.bazel.

    Args:
      name: the test_suite's name.
    """
    test_suite_of(name, {
        "device_link_actions_test": (device_link_actions_test, {"target_under_test": ":dlink_two"}),
        "device_link_arch_mismatch_test": (device_link_arch_mismatch_test, {"target_under_test": ":dlink_mismatch"}),
        "device_link_nothing_test": (device_link_nothing_test, {"target_under_test": ":dlink_none"}),
        "lto_without_rdc_test": (lto_without_rdc_test, {"target_under_test": ":lto_without_rdc"}),
        "rdc_stages_test": (rdc_stages_test, {"target_under_test": ":rdc_lto_mixed"}),
    })
