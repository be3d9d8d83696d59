"""The stage table applied to one source or one device link: its actions, their files, what each reads.

One definition for both languages. This file is written in the part of
Python that is also Starlark (functions, dicts, lists, comprehensions,
`.format`; no classes, `while`, recursion or exceptions), so the rules and the
tools run the same code:

- Python imports it: the runner (runner.py) lays out and schedules a compile
  with it, and CudaPlan checks that a layout holds the keys it gives;
- tools/nvcc_plan/gen_stages_bzl.py writes it into
  cuda_rules/private/stage_graph.bzl for the rules, which declare every file
  and register every action from it: the lines between the "Python only"
  markers below become the .bzl's loads, the rest is copied as it is
  (//dev:update_test fails when the copy is stale).

A stage record (stages.py, stages.bzl) says what one action of the stage is
per (its scope), what it writes and what it reads. Applied to a source's
virtual archs (records with .virtual, .reals, .ptx, .lto) or a device link's
real archs, it gives the unit's graph: one action per stage instance, each
with its output keys, script key and the keys it reads; and every file's
path under the unit's directory. An instance whose outputs nothing reads and
the rule does not return (the table's `products`) is left out.
"""

# Python only: begin
from tools.nvcc_plan.stages import ALL  # noqa: F401 - this block becomes the .bzl's load()
from tools.nvcc_plan.stages import DEVICE_OBJECT_SCRIPT
from tools.nvcc_plan.stages import EMBEDDED
from tools.nvcc_plan.stages import LAST
from tools.nvcc_plan.stages import LINK
from tools.nvcc_plan.stages import LINK_ARCH
from tools.nvcc_plan.stages import NOT_REGISTRATION_ARCH
from tools.nvcc_plan.stages import OF_REGISTRATION_ARCH
from tools.nvcc_plan.stages import REAL
from tools.nvcc_plan.stages import REGISTRATION_ARCH
from tools.nvcc_plan.stages import SAME
from tools.nvcc_plan.stages import SOURCE
from tools.nvcc_plan.stages import VIRTUAL


def fail(message):
    raise ValueError(message)


# Python only: end


def instances(stage, virtuals, link_archs):
    """The instances of a stage: dicts of its placeholder values (virtual, real, lto; arch for a link).

    Args:
      stage: a record of the stage table.
      virtuals: the source's virtual archs, in order (records with virtual, reals, ptx, lto).
      link_archs: the device link's real archs (sm_NN), in order.

    Returns:
      A list of dicts, one per action of the stage.
    """
    if stage.scope == SOURCE or stage.scope == LINK:
        return [{}]
    if stage.scope == VIRTUAL:
        return [{"lto": v.lto, "virtual": v.virtual} for v in virtuals]
    if stage.scope == REAL:
        return [{"lto": v.lto, "real": r, "virtual": v.virtual} for v in virtuals for r in v.reals]
    if stage.scope == LINK_ARCH:
        return [{"arch": a} for a in link_archs]
    fail("unknown stage scope " + stage.scope)


def _parts(inst):
    return [inst[k] for k in ("virtual", "real", "arch") if k in inst]


def instance_key(prefix, inst):
    """`prefix` and the instance's archs: "cpp1/compute_80", "ptxas/compute_80/sm_80", "device_link/sm_90"."""
    return "/".join([prefix] + _parts(inst))


def instance_arch(inst):
    """The arch an instance is for, as its progress message names it: real, else link arch, else virtual ("")."""
    return inst.get("real") or inst.get("arch") or inst.get("virtual") or ""


def script_path(script_name, inst):
    """Where CudaPlan writes an instance's script, under the unit's directory: plan/<name>[.<arch>...].sh."""
    return "plan/{}.sh".format(".".join([script_name] + _parts(inst)))


def output_path(output, inst, stem, name):
    """An output's path under the unit's directory (a source's `stem`, a device link's `name`)."""
    pattern = output.lto_pattern if inst.get("lto") and output.lto_pattern else output.pattern
    return pattern.format(
        stem = stem,
        name = name,
        virtual = inst.get("virtual", ""),
        real = inst.get("real", ""),
        arch = inst.get("arch", ""),
    )


def registration_arch(virtuals, pinned_arch_list):
    """The virtual arch whose cicc front end writes the registration stub the host compile includes.

    nvcc's is the last virtual arch it compiles. For a build pinned to the
    shipped set (pinned_arch_list: its __CUDA_ARCH_LIST__, e.g.
    "750,800,860,900") whose archs are plain (preprocessed_archs), the shipped
    set's last ("compute_90"), whichever of its archs the build compiles: the
    stub, and so the host compile, is then the same action in every build of
    the set or a subset of it. (The preprocess writes that arch's device side
    in every such build; elsewhere the build's last is preprocessed.)

    Args:
      virtuals: the source's virtual archs, in order.
      pinned_arch_list: the shipped set's __CUDA_ARCH_LIST__ for a pinned build, else "".

    Returns:
      "compute_NN".
    """
    last = "compute_%d" % (int(pinned_arch_list.split(",")[-1]) // 10) if pinned_arch_list else ""
    if last and last in preprocessed_archs(virtuals, pinned_arch_list):
        return last
    return virtuals[-1].virtual


def preprocessed_archs(virtuals, pinned_arch_list):
    """The virtual archs a source's preprocess writes the device side for.

    In a build pinned to the shipped set (pinned_arch_list: its
    __CUDA_ARCH_LIST__, e.g. "750,800,860,900") whose archs, and the shipped
    set's, are all plain (compute_NN, whose preprocess commands differ in the
    arch's number alone): every arch of the shipped set, whichever the build
    compiles, so the preprocess is the same action in every build of the set
    or a subset of it (the planner writes an arch nvcc's plan lacks from
    another's command). Otherwise the build's own archs.

    Args:
      virtuals: the source's virtual archs, in order.
      pinned_arch_list: the shipped set's __CUDA_ARCH_LIST__ for a pinned build, else "".

    Returns:
      A list of "compute_NN", the build's archs among them.
    """
    own = [v.virtual for v in virtuals]
    if not pinned_arch_list:
        return own
    shipped = ["compute_%d" % (int(n) // 10) for n in pinned_arch_list.split(",")]
    plain = [a for a in own + shipped if a.startswith("compute_") and a[len("compute_"):].isdigit()]
    if len(plain) != len(own) + len(shipped) or [a for a in own if a not in shipped]:
        return own
    return shipped


def _output_scope(key, table):
    for o in table.plan_outputs:
        if o.key == key:
            return table.plan_scope
    for stage in table.stages:
        for o in stage.outputs:
            if o.key == key:
                return o.scope or stage.scope
    fail("no stage of the {} table writes output {}".format(table.name, key))


def _project(inst, scope):
    """The part of a reader's instance that names the instance of an output of `scope` it reads."""
    keep = {LINK: [], LINK_ARCH: ["arch"], REAL: ["virtual", "real"], SOURCE: [], VIRTUAL: ["virtual"]}[scope]
    return {k: inst[k] for k in keep}


def _scope_instances(scope, virtuals, link_archs):
    if scope == SOURCE or scope == LINK:
        return [{}]
    if scope == VIRTUAL:
        return [{"virtual": v.virtual} for v in virtuals]
    if scope == REAL:
        return [{"real": r, "virtual": v.virtual} for v in virtuals for r in v.reals]
    return [{"arch": a} for a in link_archs]


def read_keys(stage, inst, table, virtuals, link_archs, registration):
    """The output keys (of earlier stages and of CudaPlan) one instance of `stage` reads, by its `reads`.

    Args:
      stage: a record of `table`.
      inst: one of its instances.
      table: the unit's table.
      virtuals: the source's virtual archs (a device link: []).
      link_archs: the device link's archs (a source: []).
      registration: the registration stub's arch (registration_arch), for its selectors; "" for a link.

    Returns:
      The keys, in the order of `reads`, each once.
    """
    keys = []
    for out_key, selector in stage.reads:
        scope = _output_scope(out_key, table)
        if selector == SAME:
            found = [_project(inst, scope)]
        elif selector == ALL:
            found = _scope_instances(scope, virtuals, link_archs)
        elif selector == EMBEDDED:
            found = [{"virtual": v.virtual} for v in virtuals if v.ptx or v.lto]
        elif selector == LAST:
            found = [{"arch": link_archs[-1]}]
        elif selector == OF_REGISTRATION_ARCH:
            found = [{"virtual": registration}]
        elif selector == REGISTRATION_ARCH or selector == NOT_REGISTRATION_ARCH:
            found = [_project(inst, scope)] if (inst.get("virtual") == registration) == (selector == REGISTRATION_ARCH) else []
        else:
            found = []
            fail("unknown selector {} of {} in stage {}".format(selector, out_key, stage.name))
        for i in found:
            key = instance_key(out_key, i)
            if key not in keys:
                keys.append(key)
    return keys


def _output_instances(output, inst, preprocessed):
    """The instances of `output` one action of its stage writes: its own, or one per preprocessed arch (a per-arch output)."""
    if output.scope == VIRTUAL and not inst:
        return [{"virtual": a} for a in preprocessed]
    return [inst]


def unit_graph(table, *, virtuals = [], link_archs = [], stem = "", name = "", registration = "", device_object = False, preprocessed = []):
    """The actions and files of one source (or device link) compiled by `table`.

    Args:
      table: the stage table (COMPILE_TABLE, CLANG_TABLE, LINK_TABLE).
      virtuals: the source's virtual archs, in order (a device link: []).
      link_archs: the device link's real archs, in order (a source: []).
      stem: the source's file name without its extension (a device link: "").
      name: the device link target's name (a source: "").
      registration: the registration stub's arch (registration_arch; a device link: "").
      device_object: whether CudaPlan also writes the device_object script (relocatable code).
      preprocessed: the archs a source-scope stage's per-arch outputs are for (preprocessed_archs;
        default: the source's virtual archs).

    Returns:
      A dict: "actions": one dict per stage instance, in pipeline order (stage: its record, inst:
      the instance, script: its script's key, outputs: the keys it writes, reads: the keys it
      reads); "files": {output key: path under the unit's directory} of every action's outputs and
      CudaPlan's; "scripts": {script key: path} of CudaPlan's scripts.
    """
    preprocessed = preprocessed or [v.virtual for v in virtuals]
    candidates = []
    for stage in table.stages:
        for inst in instances(stage, virtuals, link_archs):
            candidates.append({
                "inst": inst,
                "outputs": [instance_key(o.key, i) for o in stage.outputs for i in _output_instances(o, inst, preprocessed)],
                "reads": read_keys(stage, inst, table, virtuals, link_archs, registration),
                "script": instance_key(stage.name, inst),
                "stage": stage,
            })

    # Readers come after what they read (pipeline order): one pass from the
    # end keeps every instance whose outputs are read, or returned by the rule.
    needed = {}
    wanted = {}
    for c in reversed(candidates):
        if [k for k in c["outputs"] if k in wanted or k.split("/")[0] in table.products]:
            needed[c["script"]] = True
            for k in c["reads"]:
                wanted[k] = True
    actions = [c for c in candidates if c["script"] in needed]

    files = {o.key: output_path(o, {}, stem, name) for o in table.plan_outputs}
    scripts = {}
    for a in actions:
        stage = a["stage"]
        for o in stage.outputs:
            for i in _output_instances(o, a["inst"], preprocessed):
                files[instance_key(o.key, i)] = output_path(o, i, stem, name)
        scripts[a["script"]] = script_path(stage.script_name, a["inst"])
    if device_object:
        scripts[DEVICE_OBJECT_SCRIPT] = script_path(DEVICE_OBJECT_SCRIPT, {})
    return {"actions": actions, "files": files, "scripts": scripts}
