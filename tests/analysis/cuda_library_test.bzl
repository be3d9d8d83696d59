"""Analysis tests of cuda_library: the actions it registers, their argv and outputs, and its errors."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//cuda_rules:providers.bzl", "CudaInfo")

_ARCHS_SETTING = str(Label("//cuda_rules:archs"))
_SHIPPED_SETTING = str(Label("//cuda_rules:shipped_archs"))
_STAGED_SETTING = str(Label("//cuda_rules:staged"))

# Every mnemonic cuda_library registers for a .cu file, staged or not.
_STAGED_MNEMONICS = [
    "CudaPlan",
    "CudaHostPreprocess",
    "CudaFrontend",
    "CudaDevicePreprocess",
    "CudaCicc",
    "CudaPtxas",
    "CudaFatbinary",
    "CudaHostCompile",
]
_CUDA_MNEMONICS = _STAGED_MNEMONICS + ["CudaCompile"]

# Helpers ----------------------------------------------------------------------

def _actions(env, mnemonic):
    return [a for a in analysistest.target_actions(env) if a.mnemonic == mnemonic]

def _only_action(env, mnemonic):
    """The one action with `mnemonic`, or None (and a failure) if there is not exactly one."""
    actions = _actions(env, mnemonic)
    asserts.equals(env, 1, len(actions), "number of {} actions".format(mnemonic))
    return actions[0] if len(actions) == 1 else None

def _assert_counts(env, expected):
    """Asserts the number of actions of each mnemonic in `expected` (a dict of mnemonic to int)."""
    for mnemonic, count in expected.items():
        asserts.equals(env, count, len(_actions(env, mnemonic)), "number of {} actions".format(mnemonic))

def _assert_argv_contains(env, action, flags):
    for flag in flags:
        asserts.true(
            env,
            flag in action.argv,
            "{} argv has no '{}': {}".format(action.mnemonic, flag, action.argv),
        )

def _assert_argv_lacks(env, action, flags):
    for flag in flags:
        asserts.false(
            env,
            flag in action.argv,
            "{} argv has '{}': {}".format(action.mnemonic, flag, action.argv),
        )

def _parent_name(file):
    return file.dirname.rpartition("/")[2]

def _staged_counts(virtuals, reals, srcs = 1):
    return {
        "CudaCicc": virtuals * srcs,
        "CudaCompile": 0,
        "CudaDevicePreprocess": virtuals * srcs,
        "CudaFatbinary": srcs,
        "CudaFrontend": srcs,
        "CudaHostCompile": srcs,
        "CudaHostPreprocess": srcs,
        "CudaPlan": srcs,
        "CudaPtxas": reals * srcs,
    }

def _check_staged_archs(env, virtuals, reals):
    """Checks one .cu compiled in stages for `virtuals` (compute_NN) and `reals` (compute_NN/sm_NN)."""
    _assert_counts(env, _staged_counts(len(virtuals), len(reals)))

    ptx_by_arch = {}
    for action in _actions(env, "CudaCicc"):
        ptx = [f for f in action.outputs.to_list() if f.path.endswith(".ptx")]
        asserts.equals(env, 1, len(ptx), "number of .ptx outputs of a CudaCicc action")
        if len(ptx) != 1:
            continue
        arch = _parent_name(ptx[0])
        asserts.false(env, arch in ptx_by_arch, "two CudaCicc actions write PTX for " + arch)
        ptx_by_arch[arch] = ptx[0]
    asserts.equals(env, sorted(virtuals), sorted(ptx_by_arch.keys()), "directories of the CudaCicc .ptx outputs")

    seen = []
    for action in _actions(env, "CudaPtxas"):
        outputs = action.outputs.to_list()
        asserts.equals(env, 1, len(outputs), "number of outputs of a CudaPtxas action")
        if len(outputs) != 1:
            continue
        cubin = outputs[0]
        asserts.true(env, cubin.path.endswith(".cubin"), "CudaPtxas output is not a .cubin: " + cubin.path)
        matches = [r for r in reals if "/{}/".format(r) in cubin.path]
        asserts.equals(env, 1, len(matches), "compute_XX/sm_XX/ in CudaPtxas output " + cubin.path)
        if len(matches) != 1:
            continue
        seen.append(matches[0])

        # ptxas reads the PTX that cicc wrote for its virtual arch.
        ptx = ptx_by_arch.get(matches[0].split("/")[0])
        if ptx:
            asserts.true(
                env,
                ptx in action.inputs.to_list(),
                "CudaPtxas for {} does not read {}".format(matches[0], ptx.path),
            )
    asserts.equals(env, sorted(reals), sorted(seen), "compute_XX/sm_XX of the CudaPtxas outputs")

# Staged actions per arch -----------------------------------------------------

def _four_archs_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_staged_archs(
        env,
        virtuals = ["compute_75", "compute_80", "compute_86", "compute_90"],
        reals = ["compute_75/sm_75", "compute_80/sm_80", "compute_86/sm_86", "compute_90/sm_90"],
    )
    return analysistest.end(env)

four_archs_test = analysistest.make(_four_archs_test_impl)

def _one_arch_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_staged_archs(env, virtuals = ["compute_90"], reals = ["compute_90/sm_90"])
    return analysistest.end(env)

one_arch_test = analysistest.make(_one_arch_test_impl)

# The attribute wins over the build setting.
one_arch_with_archs_flag_test = analysistest.make(
    _one_arch_test_impl,
    config_settings = {_ARCHS_SETTING: "sm_75,sm_80,compute_80"},
)

def _rules_cuda_form_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_staged_archs(env, virtuals = ["compute_80"], reals = ["compute_80/sm_80", "compute_80/sm_86"])
    return analysistest.end(env)

rules_cuda_form_test = analysistest.make(_rules_cuda_form_test_impl)

def _archs_flag_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_staged_archs(
        env,
        virtuals = ["compute_80", "compute_90"],
        reals = ["compute_80/sm_80", "compute_90/sm_90"],
    )

    # sm_80,sm_90,compute_90 has the same stages, but embeds compute_90 PTX:
    # the gencode flags tell them apart.
    plan = _only_action(env, "CudaPlan")
    if plan:
        _assert_argv_contains(env, plan, [
            "-gencode=arch=compute_80,code=[sm_80]",
            "-gencode=arch=compute_90,code=[sm_90]",
        ])
        _assert_argv_lacks(env, plan, ["-gencode=arch=compute_90,code=[sm_90,compute_90]"])
    return analysistest.end(env)

archs_flag_test = analysistest.make(
    _archs_flag_test_impl,
    config_settings = {_ARCHS_SETTING: "sm_80,sm_90"},
)

# Flags ----------------------------------------------------------------------

def _flags_reach_plan_test_impl(ctx):
    env = analysistest.begin(ctx)
    _assert_counts(env, _staged_counts(virtuals = 2, reals = 2))
    plan = _only_action(env, "CudaPlan")
    if plan:
        _assert_argv_contains(env, plan, [
            "-O3",
            "-lineinfo",
            "-Xcompiler=-fno-omit-frame-pointer",
            "-Xptxas=--warn-on-spills",
            "-DFROM_DEFINES=1",
            "-DFROM_LOCAL_DEFINES",
            "-gencode=arch=compute_80,code=[sm_80]",
            "-gencode=arch=compute_90,code=[sm_90]",
        ])
        asserts.true(
            env,
            [a for a in plan.argv if a.endswith("tests/analysis/kernel.cu")] != [],
            "CudaPlan argv does not name kernel.cu: {}".format(plan.argv),
        )
        asserts.equals(
            env,
            [],
            [a for a in plan.argv if a.endswith("helper.cc")],
            "CudaPlan argv names helper.cc",
        )

    # helper.cc is compiled by the C++ toolchain, with the host options and defines but not the nvcc options.
    cpp = _only_action(env, "CppCompile")
    if cpp:
        asserts.true(
            env,
            [f for f in cpp.inputs.to_list() if f.basename == "helper.cc"] != [],
            "the CppCompile action does not compile helper.cc",
        )
        _assert_argv_contains(env, cpp, ["-fno-omit-frame-pointer", "-DFROM_DEFINES=1", "-DFROM_LOCAL_DEFINES"])
        _assert_argv_lacks(env, cpp, ["-O3", "-lineinfo", "-Xcompiler=-fno-omit-frame-pointer"])
    for action in analysistest.target_actions(env):
        if action.mnemonic in _CUDA_MNEMONICS:
            asserts.equals(
                env,
                [],
                [f for f in action.inputs.to_list() if f.basename == "helper.cc"],
                "{} reads helper.cc".format(action.mnemonic),
            )
    return analysistest.end(env)

flags_reach_plan_test = analysistest.make(_flags_reach_plan_test_impl)

def _stage_keys_without_arch_list_test_impl(ctx):
    env = analysistest.begin(ctx)
    actions = _actions(env, "CudaCicc") + _actions(env, "CudaPtxas")
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

# staged = False: one nvcc action per .cu -------------------------------------

def _check_unstaged(env, srcs):
    counts = {m: 0 for m in _STAGED_MNEMONICS}
    counts["CudaCompile"] = len(srcs)
    _assert_counts(env, counts)
    compiled = []
    for action in _actions(env, "CudaCompile"):
        _assert_argv_contains(env, action, [
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
    config_settings = {_STAGED_SETTING: False},
)

# staged = False on the target does the same without the setting.
unstaged_by_attribute_test = analysistest.make(_unstaged_test_impl)

# staged = True on the target wins over the setting.
def _staged_by_attribute_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_staged_archs(env, virtuals = ["compute_90"], reals = ["compute_90/sm_90"])
    return analysistest.end(env)

staged_by_attribute_test = analysistest.make(
    _staged_by_attribute_test_impl,
    config_settings = {_STAGED_SETTING: False},
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
    config_settings = {_ARCHS_SETTING: "sm_8x"},
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

# rdc and device linking -----------------------------------------------------

def _lto_without_rdc_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "lto_without_rdc: LTO archs (lto_90)")
    asserts.expect_failure(env, "set rdc = True")
    return analysistest.end(env)

lto_without_rdc_test = analysistest.make(_lto_without_rdc_test_impl, expect_failure = True)

def _rdc_stages_test_impl(ctx):
    env = analysistest.begin(ctx)
    layouts = [
        json.decode(a.content)
        for a in analysistest.target_actions(env)
        if a.mnemonic == "FileWrite" and a.outputs.to_list()[0].basename == "layout.json"
    ]
    asserts.equals(env, 1, len(layouts))
    layout = layouts[0]
    asserts.true(env, layout["rdc"], "layout says rdc")
    asserts.equals(env, ["compute_90"], [a["virtual"] for a in layout["archs"] if a["lto"]])
    asserts.true(env, layout["files"]["ptx/compute_90"].endswith("compute_90/kernel.ltoir"), layout["files"]["ptx/compute_90"])
    asserts.true(env, "device_object" in layout["scripts"], "a device_object script is planned")
    plan = _only_action(env, "CudaPlan")
    asserts.true(env, plan != None and "-rdc=true" in plan.argv, "nvcc is planned with -rdc=true")

    # LTO arch compute_90: its cicc makes NVVM IR, and no ptxas runs for it.
    ptxas = [a for a in analysistest.target_actions(env) if a.mnemonic == "CudaPtxas"]
    asserts.equals(env, ["sm_80"], sorted([a.outputs.to_list()[0].dirname.rpartition("/")[2] for a in ptxas]))
    info = analysistest.target_under_test(env)[CudaInfo]
    asserts.true(env, info.rdc)
    asserts.equals(
        env,
        [("sm_80", "elf", "kernel.cubin"), ("sm_90", "nvvm", "kernel.ltoir")],
        sorted([(i.arch, i.kind, i.image.basename) for i in info.device_link_inputs]),
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
    config_settings = {_ARCHS_SETTING: "sm_90", _SHIPPED_SETTING: _CI},
)

def _default_compiles_shipped_set_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_staged_archs(env, virtuals = ["compute_80", "compute_86"], reals = ["compute_80/sm_80", "compute_86/sm_86"])
    _check_pinned(env, "800,860", ["compute_80", "compute_86"])
    plan = _only_action(env, "CudaPlan")
    if plan:
        _assert_argv_contains(env, plan, ["-gencode=arch=compute_80,code=[sm_80]", "-gencode=arch=compute_86,code=[sm_86,compute_86]"])
    return analysistest.end(env)

default_compiles_shipped_set_test = analysistest.make(
    _default_compiles_shipped_set_test_impl,
    config_settings = {_SHIPPED_SETTING: "sm_80,sm_86,compute_86"},
)

def _outside_gets_own_list_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_pinned(env, "", ["compute_89"])
    return analysistest.end(env)

outside_gets_own_list_test = analysistest.make(
    _outside_gets_own_list_test_impl,
    config_settings = {_ARCHS_SETTING: "sm_89", _SHIPPED_SETTING: _CI},
)

def _rules_cuda_form_shipped_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_pinned(env, _CI_LIST, ["compute_90"])
    return analysistest.end(env)

rules_cuda_form_shipped_test = analysistest.make(
    _rules_cuda_form_shipped_test_impl,
    config_settings = {
        _ARCHS_SETTING: "compute_90:sm_90",
        _SHIPPED_SETTING: "compute_75:sm_75;compute_80:sm_80;compute_86:sm_86;compute_90:sm_90,compute_90",
    },
)

# Per-target `archs`: the same rule, whatever the build compiles.
def _per_target_subset_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_pinned(env, _CI_LIST, ["compute_90"])
    return analysistest.end(env)

per_target_subset_test = analysistest.make(
    _per_target_subset_test_impl,
    config_settings = {_ARCHS_SETTING: "sm_89", _SHIPPED_SETTING: _CI},
)

def _per_target_outside_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_pinned(env, "", ["compute_89", "compute_90"])
    return analysistest.end(env)

per_target_outside_test = analysistest.make(
    _per_target_outside_test_impl,
    config_settings = {_SHIPPED_SETTING: _CI},
)

# staged = False: one nvcc action, nvcc's own list (nothing to pin).
def _unstaged_own_list_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.equals(env, "", analysistest.target_under_test(env)[CudaInfo].pinned_arch_list)
    for action in _actions(env, "CudaCompile"):
        asserts.equals(env, [], [a for a in action.argv if "__CUDA_ARCH_LIST__" in a], "CudaCompile argv")
    return analysistest.end(env)

unstaged_own_list_test = analysistest.make(
    _unstaged_own_list_test_impl,
    config_settings = {_SHIPPED_SETTING: _CI},
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
    config_settings = {_SHIPPED_SETTING: "sm_8x"},
)

def _flag_keyword_as_attribute_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "archs = \"native\" is a value of --@rules_cuda_stages//cuda_rules:archs")
    return analysistest.end(env)

flag_keyword_as_attribute_test = analysistest.make(_flag_keyword_as_attribute_test_impl, expect_failure = True)

# Suite ----------------------------------------------------------------------

def cuda_library_test_suite(name):
    """Analysis tests of cuda_library over the manual targets of tests/analysis/BUILD.bazel.

    Args:
      name: the test_suite's name.
    """
    four_archs_test(name = "cuda_library_four_archs_test", target_under_test = ":four_archs")
    one_arch_test(name = "cuda_library_one_arch_test", target_under_test = ":one_arch")
    one_arch_with_archs_flag_test(
        name = "cuda_library_archs_attribute_wins_over_flag_test",
        target_under_test = ":one_arch",
    )
    rules_cuda_form_test(name = "cuda_library_rules_cuda_form_test", target_under_test = ":rules_cuda_form")
    archs_flag_test(name = "cuda_library_archs_flag_test", target_under_test = ":no_archs_attribute")
    flags_reach_plan_test(name = "cuda_library_flags_reach_plan_test", target_under_test = ":flags")
    stage_keys_without_arch_list_test(
        name = "cuda_library_stage_keys_without_arch_list_test",
        target_under_test = ":four_archs",
    )
    unstaged_test(name = "cuda_library_unstaged_test", target_under_test = ":two_kernels")
    unstaged_by_attribute_test(
        name = "cuda_library_unstaged_by_attribute_test",
        target_under_test = ":two_kernels_unstaged",
    )
    staged_by_attribute_test(
        name = "cuda_library_staged_by_attribute_test",
        target_under_test = ":staged_attribute",
    )
    bad_archs_attribute_test(
        name = "cuda_library_bad_archs_attribute_test",
        target_under_test = ":bad_archs",
    )
    bad_archs_flag_test(name = "cuda_library_bad_archs_flag_test", target_under_test = ":no_archs_attribute")
    rdc_copt_test(name = "cuda_library_rdc_copt_test", target_under_test = ":rdc_copt")
    gencode_copt_test(name = "cuda_library_gencode_copt_test", target_under_test = ":gencode_copt")
    threads_copt_test(name = "cuda_library_threads_copt_test", target_under_test = ":threads_copt")
    subset_gets_shipped_list_test(name = "cuda_library_subset_gets_shipped_list_test", target_under_test = ":no_archs_attribute")
    default_compiles_shipped_set_test(
        name = "cuda_library_default_compiles_shipped_set_test",
        target_under_test = ":no_archs_attribute",
    )
    outside_gets_own_list_test(name = "cuda_library_outside_gets_own_list_test", target_under_test = ":no_archs_attribute")
    rules_cuda_form_shipped_test(name = "cuda_library_rules_cuda_form_shipped_test", target_under_test = ":no_archs_attribute")
    per_target_subset_test(name = "cuda_library_per_target_subset_test", target_under_test = ":one_arch")
    per_target_outside_test(name = "cuda_library_per_target_outside_test", target_under_test = ":outside_archs")
    unstaged_own_list_test(name = "cuda_library_unstaged_own_list_test", target_under_test = ":two_kernels_unstaged")
    bad_shipped_flag_test(name = "cuda_library_bad_shipped_flag_test", target_under_test = ":no_archs_attribute")
    flag_keyword_as_attribute_test(
        name = "cuda_library_flag_keyword_as_attribute_test",
        target_under_test = ":native_attribute",
    )
    lto_without_rdc_test(name = "cuda_library_lto_without_rdc_test", target_under_test = ":lto_without_rdc")
    rdc_stages_test(name = "cuda_library_rdc_stages_test", target_under_test = ":rdc_lto_mixed")
    device_link_actions_test(name = "cuda_device_link_actions_test", target_under_test = ":dlink_two")
    device_link_nothing_test(name = "cuda_device_link_nothing_test", target_under_test = ":dlink_none")
    device_link_arch_mismatch_test(name = "cuda_device_link_arch_mismatch_test", target_under_test = ":dlink_mismatch")

    native.test_suite(
        name = name,
        tests = [
            ":cuda_device_link_actions_test",
            ":cuda_device_link_arch_mismatch_test",
            ":cuda_device_link_nothing_test",
            ":cuda_library_bad_shipped_flag_test",
            ":cuda_library_default_compiles_shipped_set_test",
            ":cuda_library_flag_keyword_as_attribute_test",
            ":cuda_library_outside_gets_own_list_test",
            ":cuda_library_per_target_outside_test",
            ":cuda_library_per_target_subset_test",
            ":cuda_library_rules_cuda_form_shipped_test",
            ":cuda_library_subset_gets_shipped_list_test",
            ":cuda_library_unstaged_own_list_test",
            ":cuda_library_archs_attribute_wins_over_flag_test",
            ":cuda_library_archs_flag_test",
            ":cuda_library_bad_archs_attribute_test",
            ":cuda_library_bad_archs_flag_test",
            ":cuda_library_flags_reach_plan_test",
            ":cuda_library_four_archs_test",
            ":cuda_library_gencode_copt_test",
            ":cuda_library_lto_without_rdc_test",
            ":cuda_library_one_arch_test",
            ":cuda_library_rdc_copt_test",
            ":cuda_library_rdc_stages_test",
            ":cuda_library_rules_cuda_form_test",
            ":cuda_library_stage_keys_without_arch_list_test",
            ":cuda_library_staged_by_attribute_test",
            ":cuda_library_threads_copt_test",
            ":cuda_library_unstaged_by_attribute_test",
            ":cuda_library_unstaged_test",
        ],
    )
