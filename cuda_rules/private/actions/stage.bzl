"""One stage instance as one action, from its record of the stage table: the script CudaPlan wrote for it, run with /bin/sh."""

load("//cuda_rules/private:layout.bzl", "instance_arch", "instance_key", "read_keys")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAIN_TYPE")

visibility(["//cuda_rules/..."])

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

def run_stage(actions, stage, inst, unit, more_inputs = [], more_progress = "", tool = None):
    """Registers the action of one instance of `stage`: `/bin/sh <its script>`.

    Everything comes from the stage's record: the mnemonic, the exec group,
    the progress message, the outputs (unit.files by the record's output
    keys) and the inputs: the outputs of earlier stages it reads
    (layout.read_keys), the source and its headers (`source`), the C++
    toolchain's files (`host_compiler`) and the toolkit's (`toolkit`). The
    script holds the stage's whole command line, so the action's key is that
    command plus the contents of those inputs: nothing else of the build (other
    archs, other flags) enters it.

    Args:
      actions: ctx.actions.
      stage: a record of COMPILE_STAGES or LINK_STAGES (stages.bzl).
      inst: the instance (layout.stage_instances): {} or its archs.
      unit: the source's or device link's unit: cuda, cc_files, files and scripts by key, and for a
        source src and headers (source_in_stages.bzl, device_link.bzl).
      more_inputs: depsets of File the stage's action function adds (what the record cannot say).
      more_progress: text the action function appends to the progress message.
      tool: FilesToRunProvider or None: a program the script runs, passed as its first argument
        ("$1"; its path is in the action's command line, its runfiles among its inputs).
    """
    tool_files, tool_sets = _toolkit_files(unit.cuda, stage.toolkit)
    direct = [unit.files[k] for k in read_keys(stage, inst, unit)]
    transitive = []
    if stage.source:
        direct.append(unit.src)
        transitive.append(unit.headers)
    direct += tool_files
    transitive += tool_sets
    if stage.host_compiler:
        transitive.append(unit.cc_files)
    exec_group = stage.exec_group or None
    args = actions.args()
    args.add(unit.scripts[instance_key(stage.kind, inst)])
    if tool:
        args.add(tool.executable)
    actions.run(
        tools = [tool] if tool else [],
        executable = "/bin/sh",
        arguments = [args],
        inputs = depset(
            [unit.scripts[instance_key(stage.kind, inst)]],
            transitive = [depset(direct, transitive = transitive)] + more_inputs,
        ),
        outputs = [unit.files[instance_key(o.key, inst)] for o in stage.outputs],
        mnemonic = stage.mnemonic,
        progress_message = stage.progress.replace("{arch}", instance_arch(inst)) + more_progress,
        # A stage with an exec group of its own ("cicc", "ptxas", "dlink": exec_properties =
        # {"<group>.<key>": ...} route it) resolves the CUDA toolchain there.
        toolchain = None if exec_group else CUDA_TOOLCHAIN_TYPE,
        exec_group = exec_group,
    )
