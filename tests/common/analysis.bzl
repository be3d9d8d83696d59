"""Assertions shared by the analysis tests: actions by mnemonic, their argv, the staged compile's shape."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//cuda_rules/private:stages.bzl", "COMPILE_STAGES", "PLAN_MNEMONIC", "REAL", "SOURCE", "UNSTAGED_MNEMONIC", "VIRTUAL")  # buildifier: disable=bzl-visibility

visibility(["//tests/..."])

# Every mnemonic cuda_library registers for a .cu file, staged or not (the stage table's).
STAGED_MNEMONICS = [PLAN_MNEMONIC] + [s.mnemonic for s in COMPILE_STAGES]
CUDA_MNEMONICS = STAGED_MNEMONICS + [UNSTAGED_MNEMONIC]

ARCHS_SETTING = str(Label("//cuda_rules:archs"))
SHIPPED_SETTING = str(Label("//cuda_rules:shipped_archs"))
STAGED_SETTING = str(Label("//cuda_rules:staged"))

def actions_of(env, mnemonic):
    return [a for a in analysistest.target_actions(env) if a.mnemonic == mnemonic]

def only_action(env, mnemonic):
    """The one action with `mnemonic`, or None (and a failure) if there is not exactly one."""
    actions = actions_of(env, mnemonic)
    asserts.equals(env, 1, len(actions), "number of {} actions".format(mnemonic))
    return actions[0] if len(actions) == 1 else None

def assert_counts(env, expected):
    """Asserts the number of actions of each mnemonic in `expected` (a dict of mnemonic to int)."""
    for mnemonic, count in expected.items():
        asserts.equals(env, count, len(actions_of(env, mnemonic)), "number of {} actions".format(mnemonic))

def assert_argv_contains(env, action, flags):
    for flag in flags:
        asserts.true(
            env,
            flag in action.argv,
            "{} argv has no '{}': {}".format(action.mnemonic, flag, action.argv),
        )

def assert_argv_lacks(env, action, flags):
    for flag in flags:
        asserts.false(
            env,
            flag in action.argv,
            "{} argv has '{}': {}".format(action.mnemonic, flag, action.argv),
        )

def parent_name(file):
    return file.dirname.rpartition("/")[2]

def staged_counts(virtuals, reals, srcs = 1):
    """The number of actions of each mnemonic for `srcs` sources compiled in stages (from the stage table).

    Args:
      virtuals: the number of virtual archs.
      reals: the number of real archs.
      srcs: the number of .cu files.

    Returns:
      A dict of mnemonic to count.
    """
    per_scope = {SOURCE: srcs, VIRTUAL: virtuals * srcs, REAL: reals * srcs}
    counts = {PLAN_MNEMONIC: srcs, UNSTAGED_MNEMONIC: 0}
    for stage in COMPILE_STAGES:
        counts[stage.mnemonic] = counts.get(stage.mnemonic, 0) + per_scope[stage.scope]
    return counts

def check_staged_archs(env, virtuals, reals):
    """Checks one .cu compiled in stages for `virtuals` and `reals`.

    Every arch's CudaCicc, the registration stub's arch's included, reads that
    arch's preprocessed source (the whole cicc: tools/nvcc_plan/cicc_split.py).

    Args:
      env: the analysistest env.
      virtuals: the virtual archs, e.g. ["compute_80"].
      reals: the real archs with their virtual arch, e.g. ["compute_80/sm_80"].
    """
    assert_counts(env, staged_counts(len(virtuals), len(reals)))

    # One action per source reads the source (and its headers): CudaPreprocess.
    readers = [a.mnemonic for a in analysistest.target_actions(env) if a.mnemonic.startswith("Cuda") and
                                                                       [f for f in a.inputs.to_list() if f.is_source and f.extension in ("cu", "cc", "cpp", "cxx")]]
    asserts.equals(env, ["CudaPreprocess"], readers, "the actions that read the source")
    for action in actions_of(env, "CudaCicc"):
        cpp1 = [f for f in action.inputs.to_list() if f.basename.endswith(".cpp1.ii")]
        ptx = [f for f in action.outputs.to_list() if f.extension == "ptx"]
        asserts.equals(env, 1, len(cpp1), "preprocessed sources a CudaCicc action reads")
        if len(cpp1) == 1 and len(ptx) == 1:
            asserts.equals(env, parent_name(ptx[0]), parent_name(cpp1[0]), "the arch whose preprocessed source a CudaCicc reads")

    ptx_by_arch = {}
    for action in actions_of(env, "CudaCicc"):
        ptx = [f for f in action.outputs.to_list() if f.path.endswith(".ptx")]
        asserts.equals(env, 1, len(ptx), "number of .ptx outputs of a CudaCicc action")
        if len(ptx) != 1:
            continue
        arch = parent_name(ptx[0])
        asserts.false(env, arch in ptx_by_arch, "two CudaCicc actions write PTX for " + arch)
        ptx_by_arch[arch] = ptx[0]
    asserts.equals(env, sorted(virtuals), sorted(ptx_by_arch.keys()), "directories of the CudaCicc .ptx outputs")

    # An arch whose PTX is embedded with no cubin of its own: its CudaCicc also runs nvcc's ptxas
    # check of that PTX (the PTX_CHECK hook), so ptxas is among its inputs; no other CudaCicc's.
    with_cubins = [r.split("/")[0] for r in reals]
    for action in actions_of(env, "CudaCicc"):
        ptx = [f for f in action.outputs.to_list() if f.path.endswith(".ptx")]
        if len(ptx) == 1:
            arch = parent_name(ptx[0])
            ptxas = [f for f in action.inputs.to_list() if f.basename == "ptxas"]
            asserts.equals(env, 0 if arch in with_cubins else 1, len(ptxas), "ptxas among the inputs of CudaCicc for " + arch)

    seen = []
    for action in actions_of(env, "CudaPtxas"):
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

def layouts_of(env):
    """The layouts (plan/layout.json) the target wrote, decoded."""
    return [
        json.decode(a.content)
        for a in analysistest.target_actions(env)
        if a.mnemonic == "FileWrite" and a.outputs.to_list()[0].basename == "layout.json"
    ]
