"""Analysis tests of cuda_library: the actions it registers, their argv and outputs, the arch list, and its errors."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//cuda_rules:providers.bzl", "CudaInfo")
load(
    "//tests/common:analysis.bzl",
    "ARCHS_SETTING",
    "SHIPPED_SETTING",
    "STAGED_MNEMONICS",
    "STAGED_SETTING",
    "actions_of",
    "assert_argv_contains",
    "assert_argv_lacks",
    "assert_counts",
    "check_staged_archs",
    "only_action",
    "staged_counts",
)
load("//tests/common:suite.bzl", "test_suite_of")

# Staged actions per arch -----------------------------------------------------

def _four_archs_test_impl(ctx):
    env = analysistest.begin(ctx)
    check_staged_archs(
        env,
        virtuals = ["compute_75", "compute_80", "compute_86", "compute_90"],
        reals = ["compute_75/sm_75", "compute_80/sm_80", "compute_86/sm_86", "compute_90/sm_90"],
    )
    return analysistest.end(env)

four_archs_test = analysistest.make(_four_archs_test_impl)

def _one_arch_test_impl(ctx):
    env = analysistest.begin(ctx)
    check_staged_archs(env, virtuals = ["compute_90"], reals = ["compute_90/sm_90"])
    return analysistest.end(env)

one_arch_test = analysistest.make(_one_arch_test_impl)

def _ptx_only_arch_test_impl(ctx):
    env = analysistest.begin(ctx)
    check_staged_archs(env, virtuals = ["compute_80", "compute_90"], reals = ["compute_80/sm_80"])
    return analysistest.end(env)

ptx_only_arch_test = analysistest.make(_ptx_only_arch_test_impl)

# The attribute wins over the build setting.
one_arch_with_archs_flag_test = analysistest.make(
    _one_arch_test_impl,
    config_settings = {ARCHS_SETTING: "sm_75,sm_80,compute_80"},
)

def _rules_cuda_form_test_impl(ctx):
    env = analysistest.begin(ctx)

    # A subset of the shipped set, without its last arch (compute_90: the registration stub's).
    check_staged_archs(env, virtuals = ["compute_80"], reals = ["compute_80/sm_80", "compute_80/sm_86"])
    return analysistest.end(env)

rules_cuda_form_test = analysistest.make(_rules_cuda_form_test_impl)

def _archs_flag_test_impl(ctx):
    env = analysistest.begin(ctx)
    check_staged_archs(
        env,
        virtuals = ["compute_80", "compute_90"],
        reals = ["compute_80/sm_80", "compute_90/sm_90"],
    )

    # sm_80,sm_90,compute_90 has the same stages, but embeds compute_90 PTX:
    # the gencode flags tell them apart.
    plan = only_action(env, "CudaPlan")
    if plan:
        assert_argv_contains(env, plan, [
            "-gencode=arch=compute_80,code=[sm_80]",
            "-gencode=arch=compute_90,code=[sm_90]",
        ])
        assert_argv_lacks(env, plan, ["-gencode=arch=compute_90,code=[sm_90,compute_90]"])
    return analysistest.end(env)

archs_flag_test = analysistest.make(
    _archs_flag_test_impl,
    config_settings = {ARCHS_SETTING: "sm_80,sm_90"},
)

# Flags ----------------------------------------------------------------------

def _flags_reach_plan_test_impl(ctx):
    env = analysistest.begin(ctx)

    # helper.cc is CUDA too (nvcc -x cu, as in rules_cuda): two sources in stages, no C++ compile.
    assert_counts(env, staged_counts(virtuals = 2, reals = 2, srcs = 2))
    asserts.equals(env, [], actions_of(env, "CppCompile"), "CppCompile actions")
    plans = actions_of(env, "CudaPlan")
    asserts.equals(env, 2, len(plans), "number of CudaPlan actions")
    sources = []
    for plan in plans:
        assert_argv_contains(env, plan, [
            "-O3",
            "-lineinfo",
            "-Xcompiler=-fno-omit-frame-pointer",
            "-Xptxas=--warn-on-spills",
            "-DFROM_DEFINES=1",
            "-DFROM_LOCAL_DEFINES",
            "-gencode=arch=compute_80,code=[sm_80]",
            "-gencode=arch=compute_90,code=[sm_90]",
        ])
        src = plan.argv[plan.argv.index("-c") + 1]
        sources.append(src.rpartition("/")[2])
        if src.endswith(".cc"):
            asserts.true(env, "-x" in plan.argv and plan.argv[plan.argv.index("-x") + 1] == "cu", "helper.cc's CudaPlan lacks -x cu: {}".format(plan.argv))
        else:
            asserts.false(env, "-x" in plan.argv, "kernel.cu's CudaPlan has -x: {}".format(plan.argv))
    asserts.equals(env, ["helper.cc", "kernel.cu"], sorted(sources), "the CudaPlan actions' sources")
    return analysistest.end(env)

flags_reach_plan_test = analysistest.make(_flags_reach_plan_test_impl)

def _stage_keys_without_arch_list_test_impl(ctx):
    env = analysistest.begin(ctx)
    actions = actions_of(env, "CudaCicc") + actions_of(env, "CudaPtxas")
    asserts.equals(env, 8, len(actions), "number of CudaCicc and CudaPtxas actions")
    for action in actions:
        for arg in action.argv:
            for banned in ["__CUDA_ARCH_LIST__", "-gencode"]:
                asserts.false(
                    env,
                    banned in arg,
                    "{} argv element '{}' contains '{}'".format(action.mnemonic, arg, banned),
                )
    return analysistest.end(env)

stage_keys_without_arch_list_test = analysistest.make(_stage_keys_without_arch_list_test_impl)

# rules_cuda's default nvcc options -------------------------------------------

def _default_nvcc_options_test_impl(ctx):
    env = analysistest.begin(ctx)
    plan = only_action(env, "CudaPlan")
    if plan:
        assert_argv_contains(env, plan, ["--extended-lambda", "--expt-relaxed-constexpr"])
    return analysistest.end(env)

default_nvcc_options_test = analysistest.make(_default_nvcc_options_test_impl)

def _no_default_nvcc_options_test_impl(ctx):
    env = analysistest.begin(ctx)
    plan = only_action(env, "CudaPlan")
    if plan:
        assert_argv_lacks(env, plan, ["--extended-lambda", "--expt-relaxed-constexpr"])
    return analysistest.end(env)

no_default_nvcc_options_test = analysistest.make(_no_default_nvcc_options_test_impl)

def _old_lambda_spelling_test_impl(ctx):
    env = analysistest.begin(ctx)
    plan = only_action(env, "CudaPlan")
    if plan:
        assert_argv_contains(env, plan, ["--expt-extended-lambda", "--expt-relaxed-constexpr"])
        assert_argv_lacks(env, plan, ["--extended-lambda"])
    return analysistest.end(env)

old_lambda_spelling_test = analysistest.make(_old_lambda_spelling_test_impl)

# staged = False: one nvcc action per .cu -------------------------------------

def _check_unstaged(env, srcs):
    counts = {m: 0 for m in STAGED_MNEMONICS}
    counts["CudaCompile"] = len(srcs)
    assert_counts(env, counts)
    compiled = []
    for action in actions_of(env, "CudaCompile"):
        assert_argv_contains(env, action, [
            "-gencode=arch=compute_80,code=[sm_80]",
            "-gencode=arch=compute_90,code=[sm_90]",
            "-O3",
            "-lineinfo",
        ])
        compiled += [a.rpartition("/")[2] for a in action.argv if a.endswith(".cu")]
        outputs = action.outputs.to_list()
        asserts.equals(env, 1, len(outputs), "number of outputs of a CudaCompile action")
        asserts.true(env, outputs[0].path.endswith(".o"), "CudaCompile output is not an object: " + outputs[0].path)
    asserts.equals(env, sorted(srcs), sorted(compiled), ".cu files of the CudaCompile actions")

def _unstaged_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_unstaged(env, ["kernel.cu", "other_kernel.cu"])
    return analysistest.end(env)

unstaged_test = analysistest.make(
    _unstaged_test_impl,
    config_settings = {STAGED_SETTING: False},
)

# staged = False on the target does the same without the setting.
unstaged_by_attribute_test = analysistest.make(_unstaged_test_impl)

# staged = True on the target wins over the setting.
def _staged_by_attribute_test_impl(ctx):
    env = analysistest.begin(ctx)
    check_staged_archs(env, virtuals = ["compute_90"], reals = ["compute_90/sm_90"])
    return analysistest.end(env)

staged_by_attribute_test = analysistest.make(
    _staged_by_attribute_test_impl,
    config_settings = {STAGED_SETTING: False},
)

# Expected failures -----------------------------------------------------------

def _bad_archs_attribute_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "'sm_8x'")
    asserts.expect_failure(env, "the `archs` attribute")
    asserts.expect_failure(env, "accepted forms")
    return analysistest.end(env)

bad_archs_attribute_test = analysistest.make(_bad_archs_attribute_test_impl, expect_failure = True)

def _bad_archs_flag_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "'sm_8x'")
    asserts.expect_failure(env, "--@rules_cuda_stages//cuda_rules:archs")
    asserts.expect_failure(env, "accepted forms")
    return analysistest.end(env)

bad_archs_flag_test = analysistest.make(
    _bad_archs_flag_test_impl,
    expect_failure = True,
    config_settings = {ARCHS_SETTING: "sm_8x"},
)

def _rdc_copt_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "-rdc=true")
    asserts.expect_failure(env, "set rdc = True on the target")
    return analysistest.end(env)

rdc_copt_test = analysistest.make(_rdc_copt_test_impl, expect_failure = True)

def _gencode_copt_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "-gencode=arch=compute_80,code=sm_80")
    asserts.expect_failure(env, "archs")
    return analysistest.end(env)

gencode_copt_test = analysistest.make(_gencode_copt_test_impl, expect_failure = True)

def _threads_copt_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "'-t4'")
    asserts.expect_failure(env, "set staged = False")
    return analysistest.end(env)

threads_copt_test = analysistest.make(_threads_copt_test_impl, expect_failure = True)

# __CUDA_ARCH_LIST__ and the shipped set ---------------------------------------

_CI = "sm_75,sm_80,sm_86,sm_90,compute_90"
_CI_LIST = "750,800,860,900"

def _layout_of(env):
    for action in analysistest.target_actions(env):
        if action.mnemonic == "FileWrite" and action.outputs.to_list()[0].basename == "layout.json":
            return json.decode(action.content)
    fail("no layout.json written")

def _check_pinned(env, pinned, virtuals):
    layout = _layout_of(env)
    asserts.equals(env, pinned, layout["pinned_arch_list"], "the layout's pinned_arch_list")
    asserts.equals(env, virtuals, [a["virtual"] for a in layout["archs"]])
    asserts.equals(env, pinned, analysistest.target_under_test(env)[CudaInfo].pinned_arch_list, "CudaInfo.pinned_arch_list")

def _subset_gets_shipped_list_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_pinned(env, _CI_LIST, ["compute_90"])
    return analysistest.end(env)

subset_gets_shipped_list_test = analysistest.make(
    _subset_gets_shipped_list_test_impl,
    config_settings = {ARCHS_SETTING: "sm_90", SHIPPED_SETTING: _CI},
)

def _default_compiles_shipped_set_test_impl(ctx):
    env = analysistest.begin(ctx)
    check_staged_archs(env, virtuals = ["compute_80", "compute_86"], reals = ["compute_80/sm_80", "compute_86/sm_86"])
    _check_pinned(env, "800,860", ["compute_80", "compute_86"])
    plan = only_action(env, "CudaPlan")
    if plan:
        assert_argv_contains(env, plan, ["-gencode=arch=compute_80,code=[sm_80]", "-gencode=arch=compute_86,code=[sm_86,compute_86]"])
    return analysistest.end(env)

default_compiles_shipped_set_test = analysistest.make(
    _default_compiles_shipped_set_test_impl,
    config_settings = {SHIPPED_SETTING: "sm_80,sm_86,compute_86"},
)

def _outside_gets_own_list_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_pinned(env, "", ["compute_89"])
    return analysistest.end(env)

outside_gets_own_list_test = analysistest.make(
    _outside_gets_own_list_test_impl,
    config_settings = {ARCHS_SETTING: "sm_89", SHIPPED_SETTING: _CI},
)

def _rules_cuda_form_shipped_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_pinned(env, _CI_LIST, ["compute_90"])
    return analysistest.end(env)

rules_cuda_form_shipped_test = analysistest.make(
    _rules_cuda_form_shipped_test_impl,
    config_settings = {
        ARCHS_SETTING: "compute_90:sm_90",
        SHIPPED_SETTING: "compute_75:sm_75;compute_80:sm_80;compute_86:sm_86;compute_90:sm_90,compute_90",
    },
)

# Per-target `archs`: the same rule, whatever the build compiles.
def _per_target_subset_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_pinned(env, _CI_LIST, ["compute_90"])
    return analysistest.end(env)

per_target_subset_test = analysistest.make(
    _per_target_subset_test_impl,
    config_settings = {ARCHS_SETTING: "sm_89", SHIPPED_SETTING: _CI},
)

def _per_target_outside_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_pinned(env, "", ["compute_89", "compute_90"])
    return analysistest.end(env)

per_target_outside_test = analysistest.make(
    _per_target_outside_test_impl,
    config_settings = {SHIPPED_SETTING: _CI},
)

# staged = False: one nvcc action, nvcc's own list (nothing to pin).
def _unstaged_own_list_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.equals(env, "", analysistest.target_under_test(env)[CudaInfo].pinned_arch_list)
    for action in actions_of(env, "CudaCompile"):
        asserts.equals(env, [], [a for a in action.argv if "__CUDA_ARCH_LIST__" in a], "CudaCompile argv")
    return analysistest.end(env)

unstaged_own_list_test = analysistest.make(
    _unstaged_own_list_test_impl,
    config_settings = {SHIPPED_SETTING: _CI},
)

def _bad_shipped_flag_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "'sm_8x'")
    asserts.expect_failure(env, "--@rules_cuda_stages//cuda_rules:shipped_archs")
    asserts.expect_failure(env, "cuda.archs(shipped = ...) in the root MODULE.bazel")
    return analysistest.end(env)

bad_shipped_flag_test = analysistest.make(
    _bad_shipped_flag_test_impl,
    expect_failure = True,
    config_settings = {SHIPPED_SETTING: "sm_8x"},
)

def _flag_keyword_as_attribute_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "archs = \"native\" is a value of --@rules_cuda_stages//cuda_rules:archs")
    return analysistest.end(env)

flag_keyword_as_attribute_test = analysistest.make(_flag_keyword_as_attribute_test_impl, expect_failure = True)

# Suite ----------------------------------------------------------------------

def cuda_library_test_suite(name):
    """Analysis tests of cuda_library over the manual targets of tests/cuda_library/BUILD.bazel.

    Args:
      name: the test_suite's name.
    """
    test_suite_of(name, {
        "archs_attribute_wins_over_flag_test": (one_arch_with_archs_flag_test, {"target_under_test": ":one_arch"}),
        "archs_flag_test": (archs_flag_test, {"target_under_test": ":no_archs_attribute"}),
        "bad_archs_attribute_test": (bad_archs_attribute_test, {"target_under_test": ":bad_archs"}),
        "bad_archs_flag_test": (bad_archs_flag_test, {"target_under_test": ":no_archs_attribute"}),
        "bad_shipped_flag_test": (bad_shipped_flag_test, {"target_under_test": ":no_archs_attribute"}),
        "default_compiles_shipped_set_test": (default_compiles_shipped_set_test, {"target_under_test": ":no_archs_attribute"}),
        "default_nvcc_options_test": (default_nvcc_options_test, {"target_under_test": ":one_arch"}),
        "flag_keyword_as_attribute_test": (flag_keyword_as_attribute_test, {"target_under_test": ":native_attribute"}),
        "flags_reach_plan_test": (flags_reach_plan_test, {"target_under_test": ":flags"}),
        "four_archs_test": (four_archs_test, {"target_under_test": ":four_archs"}),
        "gencode_copt_test": (gencode_copt_test, {"target_under_test": ":gencode_copt"}),
        "no_default_nvcc_options_test": (no_default_nvcc_options_test, {"target_under_test": ":no_default_nvcc_options"}),
        "old_lambda_spelling_test": (old_lambda_spelling_test, {"target_under_test": ":old_lambda_spelling"}),
        "one_arch_test": (one_arch_test, {"target_under_test": ":one_arch"}),
        "outside_gets_own_list_test": (outside_gets_own_list_test, {"target_under_test": ":no_archs_attribute"}),
        "per_target_outside_test": (per_target_outside_test, {"target_under_test": ":outside_archs"}),
        "per_target_subset_test": (per_target_subset_test, {"target_under_test": ":one_arch"}),
        "ptx_only_arch_test": (ptx_only_arch_test, {"target_under_test": ":ptx_only_arch"}),
        "rdc_copt_test": (rdc_copt_test, {"target_under_test": ":rdc_copt"}),
        "rules_cuda_form_shipped_test": (rules_cuda_form_shipped_test, {"target_under_test": ":no_archs_attribute"}),
        "rules_cuda_form_test": (rules_cuda_form_test, {"target_under_test": ":rules_cuda_form"}),
        "stage_keys_without_arch_list_test": (stage_keys_without_arch_list_test, {"target_under_test": ":four_archs"}),
        "staged_by_attribute_test": (staged_by_attribute_test, {"target_under_test": ":staged_attribute"}),
        "subset_gets_shipped_list_test": (subset_gets_shipped_list_test, {"target_under_test": ":no_archs_attribute"}),
        "threads_copt_test": (threads_copt_test, {"target_under_test": ":threads_copt"}),
        "unstaged_by_attribute_test": (unstaged_by_attribute_test, {"target_under_test": ":two_kernels_unstaged"}),
        "unstaged_own_list_test": (unstaged_own_list_test, {"target_under_test": ":two_kernels_unstaged"}),
        "unstaged_test": (unstaged_test, {"target_under_test": ":two_kernels"}),
    })
