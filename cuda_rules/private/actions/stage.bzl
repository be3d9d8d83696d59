"""Every stage instance as one action, from its record of the stage table: the script CudaPlan wrote for it, run with /bin/sh."""

load("//cuda_rules/private:actions/hooks.bzl", "HOOKS")
load("//cuda_rules/private:compile/split_compile.bzl", "split_resource_set", "splits_stage")
load("//cuda_rules/private:stage_graph.bzl", "instance_arch")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAINS", "CUDA_TOOLCHAIN_TYPE")

visibility(["//cuda_rules/...", "//tests/..."])

def _toolkit_files(cuda, names):
    """The CUDA toolchain's files a stage names (CudaToolchainInfo fields): (Files, depsets)."""
    files = []
    sets = []
    for name in names:
        value = getattr(cuda, name)
        if type(value) == "depset":
            sets.append(value)
        else:
            files.append(value)
    return files, sets

def run_stage(actions, unit, action):
    """Registers one stage instance's action: `/bin/sh <its script>`.

    Everything comes from the stage's record: the mnemonic, the exec group,
    the progress message, the outputs and the inputs: the outputs of earlier
    stages it reads (the graph's `reads`), the source and its headers
    (`source`), the C++ toolchain's files (`host_compiler`) and the
    toolkit's (`toolkit`); a record's `hook` (actions/hooks.bzl) adds what it
    cannot say. The script holds the stage's whole command line, so the
    action's key is that command plus the contents of those inputs: nothing
    else of the build (other archs, other flags) enters it. A stage whose tool
    runs the unit's split compilation threads declares that many CPUs
    (compile/split_compile.bzl).

    Args:
      actions: ctx.actions.
      unit: the source's or device link's unit (unit.bzl).
      action: one of unit.actions: its stage (the record), inst, script, outputs and reads.
    """
    stage = action["stage"]
    inst = action["inst"]
    tool_files, tool_sets = _toolkit_files(unit.cuda, stage.toolkit)
    direct = [unit.files[k] for k in action["reads"]]
    transitive = []
    if stage.source:
        direct.append(unit.src)
        transitive.append(unit.headers)
    direct += tool_files
    transitive += tool_sets
    if stage.host_compiler:
        transitive.append(unit.cc_files)
    extra = HOOKS[stage.hook](unit, inst) if stage.hook else struct(inputs = [], progress = "", tool = None)
    script = unit.scripts[action["script"]]
    args = actions.args()
    args.add(script)
    if extra.tool:
        args.add(extra.tool.executable)
    exec_group = stage.exec_group or None
    split = splits_stage(stage, unit.split_compile, unit.cuda.version, instance_arch(inst))
    actions.run(
        tools = [extra.tool] if extra.tool else [],
        executable = "/bin/sh",
        arguments = [args],
        inputs = depset([script], transitive = [depset(direct, transitive = transitive)] + extra.inputs),
        outputs = [unit.files[k] for k in action["outputs"]],
        mnemonic = stage.mnemonic,
        progress_message = stage.progress.replace("{arch}", instance_arch(inst)) + extra.progress,
        # A stage with an exec group of its own ("cicc", "ptxas", "dlink": exec_properties =
        # {"<group>.<key>": ...} route it) resolves the CUDA toolchain there.
        toolchain = None if exec_group else CUDA_TOOLCHAIN_TYPE,
        exec_group = exec_group,
        resource_set = split_resource_set(unit.split_compile) if split else None,
    )

def run_stages(actions, unit):
    """Registers one action per stage instance of the unit, in pipeline order.

    Args:
      actions: ctx.actions.
      unit: the source's or device link's unit (unit.bzl).
    """
    for action in unit.actions:
        run_stage(actions, unit, action)

def stage_exec_groups(*tables):
    """The exec groups a rule declares for the stages of the tables it runs (COMPILE_TABLE, LINK_TABLE).

    The heavy per-arch stages run in their own exec groups, so a target can
    route them to other workers: exec_properties = {"ptxas.Pool": "large"}.

    Args:
      *tables: the pipelines (stages.bzl).

    Returns:
      A dict for rule(exec_groups = ...).
    """
    return {name: exec_group(toolchains = CUDA_TOOLCHAINS) for table in tables for name in table.exec_groups}
