"""Analysis tests of cuda_device_image: which file it places where, and its errors."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//tests/common:suite.bzl", "test_suite_of")

def _symlink_of(env):
    actions = [a for a in analysistest.target_actions(env) if a.mnemonic == "Symlink"]
    asserts.equals(env, 1, len(actions), "Symlink actions")
    return actions[0] if actions else None

def _check_image(env, out, input_suffix):
    action = _symlink_of(env)
    if not action:
        return
    outputs = [f.short_path for f in action.outputs.to_list()]
    asserts.equals(env, ["tests/device_image/" + out], outputs, "the placed file")
    inputs = [f.path for f in action.inputs.to_list()]
    asserts.equals(env, 1, len(inputs), "inputs: {}".format(inputs))
    asserts.true(env, inputs[0].endswith(input_suffix), "{} does not end with {}".format(inputs, input_suffix))
    target = analysistest.target_under_test(env)
    asserts.equals(env, outputs, [f.short_path for f in target[DefaultInfo].default_runfiles.files.to_list()], "runfiles")

def _fatbin_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_image(env, "kernels_fatbin.fatbin", "/_cuda/kernels/driver_api/kernels/kernels.fatbin")
    return analysistest.end(env)

fatbin_test = analysistest.make(_fatbin_test_impl)

def _ptx_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_image(env, "images/kernels.compute_75.ptx", "/_cuda/kernels/driver_api/kernels/compute_75/kernels.ptx")
    return analysistest.end(env)

ptx_test = analysistest.make(_ptx_test_impl)

def _cubin_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_image(env, "images/kernels.sm_86.cubin", "/_cuda/kernels/driver_api/kernels/compute_86/sm_86/kernels.cubin")
    return analysistest.end(env)

cubin_test = analysistest.make(_cubin_test_impl)

def _one_of_two_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_image(env, "one_of_two.fatbin", "/_cuda/two_sources/other/other.fatbin")
    return analysistest.end(env)

one_of_two_test = analysistest.make(_one_of_two_test_impl)

def _failure_test(*messages):
    def impl(ctx):
        env = analysistest.begin(ctx)
        for m in messages:
            asserts.expect_failure(env, m)
        return analysistest.end(env)

    return analysistest.make(impl, expect_failure = True)

bad_arch_test = _failure_test(
    "//tests/device_image:bad_arch: no cubin of",
    "for sm_89: it compiles the real archs sm_75, sm_80, sm_86, sm_90",
    "Fix: set arch to one of them",
)
cubin_without_arch_test = _failure_test("no arch given", "(kind = \"cubin\" needs `arch`)")
fatbin_with_arch_test = _failure_test("arch = \"sm_90\" with kind = \"fatbin\"", "Fix: remove `arch`")
from_objects_test = _failure_test("//tests/device_image:objects compiles relocatable device code", "cuLinkCreate / nvJitLink")
from_rdc_test = _failure_test("//tests/device_image:relocatable compiles relocatable device code")
from_unstaged_test = _failure_test("//tests/device_image:unstaged has no CUDA source compiled in stages", "set staged = True on //tests/device_image:unstaged")
two_without_src_test = _failure_test("has 2 CUDA sources", "cuModuleLoad loads one", "name the source in `src`")
wrong_src_test = _failure_test("`src` tests/device_image/other.cu is not one of the CUDA sources of //tests/device_image:kernels")

def device_image_test_suite(name):
    """Analysis tests of cuda_device_image over the targets of tests/device_image/BUILD.bazel.

    Args:
      name: the test_suite's name.
    """
    test_suite_of(name, {
        "bad_arch_test": (bad_arch_test, {"target_under_test": ":bad_arch"}),
        "cubin_test": (cubin_test, {"target_under_test": ":kernels_sm_86"}),
        "cubin_without_arch_test": (cubin_without_arch_test, {"target_under_test": ":cubin_without_arch"}),
        "fatbin_test": (fatbin_test, {"target_under_test": ":kernels_fatbin"}),
        "fatbin_with_arch_test": (fatbin_with_arch_test, {"target_under_test": ":fatbin_with_arch"}),
        "from_objects_test": (from_objects_test, {"target_under_test": ":from_objects"}),
        "from_rdc_test": (from_rdc_test, {"target_under_test": ":from_rdc"}),
        "from_unstaged_test": (from_unstaged_test, {"target_under_test": ":from_unstaged"}),
        "one_of_two_test": (one_of_two_test, {"target_under_test": ":one_of_two"}),
        "ptx_test": (ptx_test, {"target_under_test": ":kernels_ptx"}),
        "two_without_src_test": (two_without_src_test, {"target_under_test": ":two_without_src"}),
        "wrong_src_test": (wrong_src_test, {"target_under_test": ":wrong_src"}),
    })
