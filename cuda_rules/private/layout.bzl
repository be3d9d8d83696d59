"""The stage table (stages.bzl) applied to a source or a device link: its instances, their files, what each reads.

The same functions exist in tools/nvcc_plan/stages.py (instances, instance_key,
script_path, output_path, the selectors of `reads`). Every CudaPlan action
checks the layout these declare against the Python ones
(tools/nvcc_plan/layout.py), so a difference fails the build that has it,
naming the file; //tests/cuda_library:stage_graph_test checks what each
action reads against the Python table.
"""

load(
    ":stages.bzl",
    "ALL",
    "DEVICE_OBJECT_SCRIPT",
    "EMBEDDED",
    "LAST",
    "LAYOUT",
    "LINK",
    "LINK_ARCH",
    "NOT_STUB_ARCH",
    "REAL",
    "SAME",
    "SOURCE",
    "STUB_ARCH",
    "VIRTUAL",
)

visibility(["//cuda_rules/...", "//tests/..."])

def stage_instances(stage, archs = None, link_archs = []):
    """The instances of a stage: dicts of the placeholder values (virtual, real, arch, lto).

    Args:
      stage: a struct of COMPILE_STAGES or LINK_STAGES.
      archs: a struct from archs.parse_archs (compile stages).
      link_archs: list of sm_NN (device link stages).

    Returns:
      A list of dicts, one per action of the stage.
    """
    if stage.scope in (SOURCE, LINK):
        return [{}]
    if stage.scope == VIRTUAL:
        return [{"lto": v.lto, "virtual": v.virtual} for v in archs.virtuals]
    if stage.scope == REAL:
        return [{"lto": v.lto, "real": r, "virtual": v.virtual} for v in archs.virtuals for r in v.reals]
    if stage.scope == LINK_ARCH:
        return [{"arch": a} for a in link_archs]
    fail("unknown stage scope " + stage.scope)

def _parts(inst):
    return [inst[k] for k in ("virtual", "real", "arch") if k in inst]

def instance_key(prefix, inst):
    """`prefix` plus the instance's archs, e.g. "cpp1/compute_80" or "ptxas/compute_80/sm_80"."""
    return "/".join([prefix] + _parts(inst))

def script_path(kind, inst):
    """Where CudaPlan writes a stage's script, relative to the source's (or link's) directory."""
    return "plan/{}.sh".format(".".join([kind] + _parts(inst)))

def output_path(output, inst, stem = "", name = ""):
    """An output's path relative to the source's (or link's) directory."""
    pattern = output.lto_pattern if inst.get("lto") and output.lto_pattern else output.pattern
    return pattern.format(
        stem = stem,
        name = name,
        virtual = inst.get("virtual", ""),
        real = inst.get("real", ""),
        arch = inst.get("arch", ""),
    )

def _declare(actions, base, table, instances_of, names):
    """({key: File} of CudaPlan's and every stage's outputs, {key: File} of the stage scripts), declared under `base`.

    `table`: COMPILE_TABLE or LINK_TABLE; `instances_of`: stage -> its
    instances; `names`: the placeholders stem and name.
    """
    files = {o.key: actions.declare_file(base + output_path(o, {}, **names)) for o in table.plan_outputs}
    scripts = {}
    for stage in table.stages:
        for inst in instances_of(stage):
            for o in stage.outputs:
                files[instance_key(o.key, inst)] = actions.declare_file(base + output_path(o, inst, **names))
            scripts[instance_key(stage.kind, inst)] = actions.declare_file(base + script_path(stage.kind, inst))
    return files, scripts

def _directory(file, relative):
    return file.path[:-len("/" + relative)]

def declare_compile_files(actions, *, table, base, stem, archs, rdc):
    """Declares every file of one source's staged compile.

    Args:
      actions: ctx.actions.
      table: the pipeline (COMPILE_TABLE).
      base: the source's directory relative to the package, ending in "/".
      stem: the source's file name without extension.
      archs: a struct from archs.parse_archs.
      rdc: whether CudaPlan also writes the device_object script.

    Returns:
      struct(files = {key: File}, scripts = {key: File}, layout = File, directory = execroot path).
    """
    files, scripts = _declare(
        actions,
        base,
        table,
        lambda stage: stage_instances(stage, archs),
        {"name": "", "stem": stem},
    )
    if rdc:
        scripts[DEVICE_OBJECT_SCRIPT] = actions.declare_file(base + script_path(DEVICE_OBJECT_SCRIPT, {}))
    module_id = files["module_id"]
    return struct(
        files = files,
        scripts = scripts,
        layout = actions.declare_file(base + LAYOUT),
        directory = _directory(module_id, output_path([o for o in table.plan_outputs if o.key == "module_id"][0], {}, stem = stem)),
    )

def declare_link_files(actions, *, table, base, name, link_archs):
    """Declares every file of a device link.

    Args:
      actions: ctx.actions.
      table: the pipeline (LINK_TABLE).
      base: the link's directory relative to the package, ending in "/".
      name: the target's name (the files' names).
      link_archs: list of sm_NN, in arch order.

    Returns:
      struct(files = {key: File}, scripts = {key: File}, layout = File, directory = execroot path).
    """
    files, scripts = _declare(
        actions,
        base,
        table,
        lambda stage: stage_instances(stage, link_archs = link_archs),
        {"name": name, "stem": ""},
    )
    nvcc_args = files["nvcc_args"]
    return struct(
        files = files,
        scripts = scripts,
        layout = actions.declare_file(base + LAYOUT),
        directory = _directory(nvcc_args, output_path([o for o in table.plan_outputs if o.key == "nvcc_args"][0], {}, name = name)),
    )

def instance_arch(inst):
    """The arch an instance is for, as its progress message names it: real, else link arch, else virtual ("" for none)."""
    return inst.get("real") or inst.get("arch") or inst.get("virtual") or ""

def _output_scope(key, table):
    for o in table.plan_outputs:
        if o.key == key:
            return table.plan_scope
    for stage in table.stages:
        for o in stage.outputs:
            if o.key == key:
                return stage.scope
    fail("no stage writes output " + key)

def _project(inst, scope):
    """The part of a reader's instance that names the instance of an output of `scope` it reads."""
    keep = {LINK: [], LINK_ARCH: ["arch"], REAL: ["virtual", "real"], SOURCE: [], VIRTUAL: ["virtual"]}[scope]
    return {k: inst[k] for k in keep}

def _scope_instances(scope, archs, link_archs):
    if scope in (SOURCE, LINK):
        return [{}]
    if scope == VIRTUAL:
        return [{"virtual": v.virtual} for v in archs.virtuals]
    if scope == REAL:
        return [{"real": r, "virtual": v.virtual} for v in archs.virtuals for r in v.reals]
    return [{"arch": a} for a in link_archs]

def stub_arch(archs, pinned_arch_list):
    """The virtual arch whose front end writes the registration stub (tools/nvcc_plan/stages.py's stub_arch).

    Args:
      archs: the parsed archs (archs.bzl).
      pinned_arch_list: the shipped set's __CUDA_ARCH_LIST__ ("750,800,860,900") for a build
        pinned to it, else "".

    Returns:
      "compute_NN": the shipped set's last for a pinned build, else the build's last.
    """
    if pinned_arch_list:
        return "compute_%d" % (int(pinned_arch_list.split(",")[-1]) // 10)
    return archs.virtuals[-1].virtual

def read_keys(stage, inst, unit):
    """The output keys (of earlier stages and CudaPlan) one instance of `stage` reads, by the table's `reads`.

    Args:
      stage: a record of the unit's table.
      inst: one of stage_instances(stage, ...).
      unit: the source's or the device link's unit (source_in_stages.bzl, device_link.bzl): its
        `table` (COMPILE_TABLE, LINK_TABLE), and `archs` / `link_archs`: which instances exist
        (a source's `stub_arch` too: stub_arch()).

    Returns:
      A list of keys of unit.files, in the order of `reads`.
    """
    keys = []
    for out_key, selector in stage.reads:
        scope = _output_scope(out_key, unit.table)
        if selector == SAME:
            found = [_project(inst, scope)]
        elif selector == ALL:
            found = _scope_instances(scope, unit.archs, unit.link_archs)
        elif selector == EMBEDDED:
            found = [{"virtual": v.virtual} for v in unit.archs.virtuals if v.ptx or v.lto]
        elif selector == LAST:
            found = [{"arch": unit.link_archs[-1]}]
        elif selector == STUB_ARCH or selector == NOT_STUB_ARCH:
            is_stub = inst.get("virtual") == getattr(unit, "stub_arch", None)
            found = [_project(inst, scope)] if is_stub == (selector == STUB_ARCH) else []
        else:
            fail("unknown selector {} of {} in stage {}".format(selector, out_key, stage.kind))
        keys.extend([instance_key(out_key, i) for i in found])
    return keys

def layout_object(keys, values):
    """`values`, failing analysis unless its keys are exactly `keys`: those tools/nvcc_plan/layout.py reads (stages.bzl).

    Args:
      keys: COMPILE_LAYOUT_KEYS, ARCH_KEYS, LINK_LAYOUT_KEYS or LINK_INPUT_KEYS.
      values: dict, one object of a layout file.

    Returns:
      values.
    """
    if sorted(values.keys()) != sorted(keys):
        fail("a layout object has keys {}, layout.py reads {}: regenerate stages.bzl (bazel run //dev:update)".format(
            sorted(values.keys()),
            sorted(keys),
        ))
    return values

def paths(files):
    """{key: File} -> {key: path}, for the layout file."""
    return {k: f.path for k, f in files.items()}
