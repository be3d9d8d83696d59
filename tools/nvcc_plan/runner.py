"""Runs nvcc's plan for one `nvcc -c` as a parallel graph of stages, without Bazel.

`nvcc_plan --run -j N -- <nvcc args>` (tools/nvcc_plan/nvcc_plan.py) calls
`run()`: it asks nvcc for its plan (`nvcc --dryrun`), lays the stages' files
out by the stage table (stages.py), as cuda_library declares them, writes
each stage's script with the CudaPlan action's own code (compile_scripts.py)
and runs the scripts as the table's graph, at most N at a time. The scripts are
those the staged rules run, so the outputs are the rules' outputs: the same
module id scheme (module_id.py), the same renamed files, the same commands.

What PyTorch's fast_nvcc.py did, plus a deterministic module id: two runs give
byte-identical objects, from any directory.
"""

import dataclasses
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from tools.nvcc_plan import cicc_split
from tools.nvcc_plan import compile_scripts
from tools.nvcc_plan import dryrun
from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import module_id as module_id_lib
from tools.nvcc_plan import scripts as scripts_lib
from tools.nvcc_plan import stage_graph
from tools.nvcc_plan import stages

_PLAIN = "use plain nvcc for this call"

# nvcc options whose plan is not one plain compile, and why. Checked before
# nvcc is asked, so the message names the option (a plan of another shape is
# refused as well: check_plan).
_REFUSED_GROUPS = [
    (("-dc", "--device-c", "-dw", "--device-w"), "write `-rdc=true -c` (the runner needs the explicit compile)"),
    (
        ("-dlink", "--device-link", "-dlto", "--dlink-time-opt"),
        "device linking is not supported by the runner yet",
    ),
    (("-E", "--preprocess"), "the runner compiles to an object; it does not only preprocess"),
    (
        ("-M", "-MM", "-MD", "-MMD", "-MF", "-MT", "-MP", "--generate-dependencies", "--generate-nonsystem-dependencies",
         "--generate-dependencies-with-compile", "--generate-nonsystem-dependencies-with-compile",
         "--dependency-output", "--dependency-target-name", "--generate-dependency-targets"),
        "dependency files are not supported by the runner yet",
    ),
    (
        ("-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin", "-optix-ir", "--optix-ir", "-cuda", "--cuda",
         "-ltoir", "--ltoir"),
        "the runner makes the host object (-c); with --keep_dir=DIR it also keeps every stage's PTX, cubins and fatbinary",
    ),
    (("-lib", "--lib", "-link", "--link", "-run", "--run"), "the runner compiles one source (-c); it does not link or run"),
    (("-dryrun", "--dryrun"), "for the plan itself, run nvcc_plan without --run"),
    (("-keep", "--keep", "-keep-dir", "--keep-dir", "-save-temps", "--save-temps"), "use the runner's own --keep_dir=DIR"),
]
_REFUSED = {name: why for names, why in _REFUSED_GROUPS for name in names}

# Options that take the next argument as their value (when not written with `=`):
# that value is not an option of nvcc's own (e.g. `-Xcompiler -MD` is gcc's).
_TAKES_VALUE = {
    "-Xcompiler", "--compiler-options", "-Xptxas", "--ptxas-options", "-Xcudafe", "-Xlinker", "--linker-options",
    "-Xnvlink", "--nvlink-options", "-Xarchive", "--archive-options", "-Xfatbin", "--fatbin-options",
    "-I", "--include-path", "-isystem", "--system-include", "-D", "--define-macro", "-U", "--undefine-macro",
    "-include", "--pre-include", "-L", "--library-path", "-l", "--library", "-o", "--output-file",
    "-odir", "--output-directory", "-ccbin", "--compiler-bindir", "-x", "--x", "-gencode", "--generate-code",
    "-arch", "--gpu-architecture", "-code", "--gpu-code", "-std", "--std", "-maxrregcount", "--maxrregcount",
    "-rdc", "--relocatable-device-code", "-t", "--threads", "--split-compile", "-split-compile", "-MF", "-MT",
    "--dependency-output", "--dependency-target-name", "-keep-dir", "--keep-dir", "-Werror",
    "-diag-suppress", "--diag-suppress",
}

_THREADS = ("-t", "--threads")


class RunError(Exception):
    """The runner cannot run this call; `code` is the exit status to return."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def check_nvcc_args(args):
    """Returns (args to give nvcc, notes for stderr); raises RunError for options the runner cannot run.

    `-t N`/`--threads N` is dropped (the runner runs the stages in parallel
    itself, and nvcc's plan with it redirects every command's output).
    """
    out, notes = [], []
    i = 0
    compile_only = False
    while i < len(args):
        arg = args[i]
        name, has_eq, _ = arg.partition("=")
        if not has_eq and len(arg) > 2 and arg.startswith("-t") and arg[2:].isdigit():
            name, has_eq = "-t", True  # -t4
        separate = not has_eq and name in _TAKES_VALUE and i + 1 < len(args)
        step = 2 if separate else 1
        if name in _THREADS:
            notes.append(
                "dropped `%s`: the runner runs nvcc's stages in parallel itself (-j)" % " ".join(args[i : i + step])
            )
            i += step
            continue
        if name in ("-rdc", "--relocatable-device-code"):
            pass  # -rdc=true: the same stages; nvcc -dlink reads the object as nvcc's own
        elif name in _REFUSED:
            raise RunError("nvcc_plan --run: `%s`: %s; %s" % (arg, _REFUSED[name], _PLAIN))
        if arg in ("-c", "--compile"):
            compile_only = True
        out.extend(args[i : i + step])
        i += step
    if not compile_only:
        raise RunError(
            "nvcc_plan --run replaces one `nvcc -c SOURCE -o OBJECT ...` (compile to an object); "
            "these arguments have no -c. For linking or other modes, %s" % _PLAIN
        )
    return out, notes


@dataclasses.dataclass
class Task:
    """One stage to run (or the plan itself, key "plan")."""

    key: str  # "plan", "preprocess", "cicc/compute_80", "ptxas/compute_80/sm_86", ...
    mnemonic: str
    arch: str
    script: str
    deps: list
    weight: float  # typical seconds (the stage record's), for the scheduling order
    # CPUs it takes of -j: its tool's split compilation threads (0: all of -j), else 1.
    cpus: int = 1
    args: tuple = ()  # the script's arguments (CudaClangEmbed's: the splice tool)
    # Filled in by the run (seconds since the runner started; CPU: user + sys of the stage's processes).
    start: float = None
    end: float = None
    cpu: float = None
    returncode: int = None

    @property
    def wall(self):
        return None if self.start is None or self.end is None else self.end - self.start


# The plan's typical seconds (the stages' are their records' `weight`); only
# the scheduling order depends on them: ready stages start
# longest-remaining-chain first.
_PLAN_WEIGHT = 0.2


def _src_path_name(src):
    """--orig_src_path_name as the rules spell it: absolute, through /proc/self/cwd if given relative."""
    if os.path.isabs(src):
        return src
    return "/proc/self/cwd/" + os.path.normpath(src)


def _workspace_path(src, cwd):
    """The source's path relative to the working directory (what the module id hashes)."""
    if src.startswith("/proc/self/cwd/"):
        return os.path.normpath(src[len("/proc/self/cwd/") :])
    if os.path.isabs(src):
        rel = os.path.relpath(src, cwd)
        return src if rel.startswith("../") else rel
    return os.path.normpath(src)


def check_plan(plan):
    """Raises RunError unless `plan` compiles one CUDA source (whether its stages can run, for_source checks).

    The runner replaces one `nvcc -c` of one source; a plan of several has a
    cudafe++ per source. The layout is made from the plan's one host
    preprocess, fatbinary and host compile: a plan that has not exactly one of
    each is not one plain compile.
    """
    frontends = len(plan.by_step(stages.STEP_CUDAFE))
    if frontends > 1:
        raise RunError(
            "nvcc_plan --run: nvcc's plan compiles %d CUDA sources; the runner replaces one `nvcc -c` of one "
            "source: call it once per source, or %s" % (frontends, _PLAIN)
        )
    steps = (stages.STEP_HOST_CPP, stages.STEP_CUDAFE, stages.STEP_FATBINARY, stages.STEP_HOST_CC)
    counts = {step: len(plan.by_step(step)) for step in steps}
    if any(n != 1 for n in counts.values()):
        raise RunError(
            "nvcc_plan --run: nvcc's plan for these options is not one plain compile of a CUDA source "
            "(host preprocess, cudafe++, per arch device preprocess + cicc + ptxas, fatbinary, host compile): "
            "%s. %s" % (", ".join("%d %s" % (n, k) for k, n in counts.items() if n != 1), _PLAIN[0].upper() + _PLAIN[1:])
        )


def _archs_of(plan):
    """The compile's virtual archs and what is built from each, as nvcc's plan has them."""
    fatbinary = plan.by_step(stages.STEP_FATBINARY)[0]
    out = []
    for cicc in plan.by_step(stages.STEP_CICC):
        reals = tuple(p.arch for p in plan.by_step(stages.STEP_PTXAS) if p.virtual_arch == cicc.arch)
        embedded = dryrun.value_after(cicc.argv, "-o") in fatbinary.inputs
        lto = "-lto" in cicc.argv  # -rdc=true, code=lto_NN: NVVM IR instead of PTX
        out.append(stages.Arch(cicc.arch, reals, ptx=embedded and not lto, lto=lto))
    return out


def _compile_layout(plan, work_dir, names, toolkit_root, nvcc_args, *, pinned_arch_list, toolchain_flags=None):
    """The layout cuda_library writes for this source, with files under `work_dir`.

    The names are the stage table's (stages.py), as the rules declare them, so
    with --keep_dir set to a target's `_cuda/<target>/<source>` directory the
    scripts are the rules' scripts byte for byte. The object is nvcc's own
    output (-o, or its default), written in place.
    """
    layout = layout_lib.compile_layout_for(
        names,
        directory=work_dir,
        toolkit_root=toolkit_root,
        archs=_archs_of(plan),
        rdc=plan.relocatable,
        pinned_arch_list=pinned_arch_list or "",
        user_options=nvcc_args,
    )
    if toolchain_flags:
        layout.host_toolchain_flags, layout.device_toolchain_flags = (list(f) for f in toolchain_flags)
    layout.files[stages.KEYS.obj] = plan.by_step(stages.STEP_HOST_CC)[0].outputs[0]
    return layout


def _toolkit_root(nvcc, plan, cwd):
    """How the scripts spell the toolkit: as nvcc was given, when that directory holds the toolkit.

    So `/proc/self/cwd/external/<toolkit>/bin/nvcc` gives the rules' spelling
    even where bin/nvcc is a link into another directory (runfiles, sandboxes),
    which nvcc reports as its location (_HERE_) instead. An nvcc reached
    through a link from elsewhere (/usr/local/bin/nvcc) gives nvcc's _HERE_.
    """
    here = plan.env_dict().get("_HERE_")
    if "/" in nvcc:
        root = os.path.dirname(os.path.dirname(nvcc))
        local = cwd + root[len("/proc/self/cwd") :] if root.startswith("/proc/self/cwd/") else os.path.join(cwd, root)
        if os.path.exists(os.path.join(local, "bin", "cudafe++")) and os.path.isdir(os.path.join(local, "nvvm", "bin")):
            return root
    if not here:
        raise RunError("nvcc_plan --run: nvcc's plan does not say where the toolkit is (_HERE_)")
    return os.path.dirname(here)


def _source_names(plan, cwd, module_id_label):
    """What the compile's source is called (layout.SourceNames), as the rules would name it for the target."""
    host_pp = plan.by_step(stages.STEP_HOST_CPP)[0]
    host_compile = plan.by_step(stages.STEP_HOST_CC)[0]
    if not host_pp.inputs or not host_compile.outputs:
        raise RunError("nvcc_plan --run: cannot find the source or the object in nvcc's plan; " + _PLAIN)
    src = host_pp.inputs[0]
    path = _workspace_path(src, cwd)
    if module_id_label:
        try:
            label = module_id_lib.canonical_label(module_id_label)
        except ValueError as e:
            raise RunError("nvcc_plan --run: --module_id_label: %s" % e)
        id_label, id_path, display = label, module_id_lib.short_path(path), label
    else:
        # No target: the id depends on the source's path only (the label part hashes "").
        id_label, id_path, display = "", path, "nvcc_plan --run"
    return layout_lib.SourceNames(
        label=display,
        display_label=display,
        src=_src_path_name(src),
        src_short_path=id_path,
        stem=dryrun.source_stem(src),
        module_id_label=id_label,
    )


def prepare(nvcc, nvcc_args, *, cwd, work_dir, module_id_label=None, pinned_arch_list=None, toolchain_flags=None, jobs=1):
    """Plans the compile: returns (tasks by key, layout). Writes the scripts under work_dir/plan/.

    `jobs` is -j: what a stage of split compilation with 0 threads takes.
    """
    text = _dryrun(nvcc, nvcc_args, cwd)
    try:
        plan = dryrun.plan_from_text(text)
    except dryrun.PlanError as e:
        raise RunError("nvcc_plan --run: %s; %s" % (e, _PLAIN))
    check_plan(plan)
    names = _source_names(plan, cwd, module_id_label)
    layout = _compile_layout(plan, work_dir, names, _toolkit_root(nvcc, plan, cwd), nvcc_args,
                             pinned_arch_list=pinned_arch_list, toolchain_flags=toolchain_flags)
    try:
        scripts = compile_scripts.for_source(plan, layout)
    except scripts_lib.PlanMismatch as e:
        raise RunError("nvcc_plan --run: %s; %s" % (e, _PLAIN))

    _write_plan(layout, scripts, nvcc_args, cwd)
    threads = split_compile_threads(nvcc_args)
    host_cpp = plan.by_step(stages.STEP_HOST_CPP)
    version = cicc_split.version_of(host_cpp[0].argv) if host_cpp else None
    return _tasks(layout, lambda stage, arch: stage_cpus(stage, threads, version, jobs, arch)), layout


def _write_plan(layout, scripts, args_json, cwd):
    """Writes what CudaPlan writes: the module id, the scripts, the layout and the arguments (args_json: its JSON value)."""

    def at(path):
        return path if os.path.isabs(path) else os.path.join(cwd, path)

    for path in list(layout.files.values()) + list(scripts):
        if os.path.dirname(path) and path != layout.files[stages.KEYS.obj]:
            os.makedirs(os.path.dirname(at(path)), exist_ok=True)
    with open(at(layout.module_id_file), "w") as f:
        f.write(compile_scripts.module_id_of(layout))
    for path, content in scripts.items():
        with open(at(path), "w") as f:
            f.write(content)
    with open(at(os.path.join(os.path.dirname(layout.nvcc_args_file), "layout.json")), "w") as f:
        json.dump(layout.to_json(), f, indent=1, sort_keys=True)
        f.write("\n")
    if not isinstance(args_json, str):
        args_json = json.dumps(list(args_json), indent=1) + "\n"
    with open(at(layout.nvcc_args_file), "w") as f:
        f.write(args_json)


def _tasks(layout, cpus, args=None):
    """The unit's actions as Bazel runs them: each starts when the stages whose outputs it reads are done
    (those reading only CudaPlan's, after the plan). `cpus(stage, arch)`: the CPUs of -j one takes;
    `args`: {stage: the script's arguments} (what the rule's action passes it)."""
    actions = layout.graph()["actions"]
    producer = {k: a["script"] for a in actions for k in a["outputs"]}
    tasks = {"plan": Task("plan", stages.PLAN_MNEMONIC, "", "", [], _PLAN_WEIGHT)}
    for a in actions:
        deps = []
        for key in a["reads"]:
            if key in producer and producer[key] not in deps:
                deps.append(producer[key])
        arch = stage_graph.instance_arch(a["inst"])
        tasks[a["script"]] = Task(
            a["script"], a["stage"].mnemonic, arch, layout.scripts[a["script"]], deps or ["plan"], a["stage"].weight,
            cpus(a["stage"], arch), args=tuple((args or {}).get(a["stage"], ())),
        )
    return tasks


def prepare_clang(clang, clang_args, *, src, cwd, work_dir, archs, rdc, embed_tool):
    """Plans one source compiled by clang in stages (the clang stage table), as CudaPlan does for a
    target with --@rules_cuda_stages//cuda_rules:compiler=clang: returns (tasks by key, layout, the driver call).

    `clang_args`: the driver's arguments as the rules give them (cuda_rules/private/compile/clang.bzl:
    -x cuda, --cuda-path, the archs, ..., the options), without the source and object. `archs`:
    [stages.Arch] as the target declares them; `embed_tool`: the command CudaClangEmbed runs
    (tools/nvcc_plan/elf_splice.py). The object is `<work_dir>/<stem>.o`. Raises RunError where the
    plan cannot be made, with clang's or the planner's message.
    """
    names = layout_lib.SourceNames(label="", display_label="nvcc_plan --run", src=src,
                                   src_short_path=_workspace_path(src, cwd), stem=dryrun.source_stem(src), module_id_label="")
    toolkit = next((a.split("=", 1)[1] for a in clang_args if a.startswith("--cuda-path=")), None)
    if toolkit is None:
        raise RunError("nvcc_plan --run: clang's arguments name no toolkit (--cuda-path=)")
    layout = layout_lib.compile_layout_for(names, directory=work_dir, toolkit_root=toolkit, archs=archs, rdc=rdc,
                                           user_options=clang_args, table=stages.CLANG_TABLE.name)
    args = list(clang_args) + ["-c", src, "-o", layout.files[stages.KEYS.obj]]
    # Here, not at the top: `nvcc_plan --run` (nvcc's stages) never needs clang's planner, and its
    # start is part of every compile it runs (docs/performance.md, "Split compilation").
    from tools.nvcc_plan import clang_scripts  # pylint: disable=g-import-not-at-top

    try:
        scripts = clang_scripts.plan(clang, layout, args, cwd=cwd)
    except dryrun.PlanError as e:  # clang's own refusal, or the planner's (PlanMismatch)
        raise RunError("nvcc_plan --run: %s" % e)
    args_json = scripts.pop(layout.nvcc_args_file)
    scripts.pop(layout.module_id_file, None)
    _write_plan(layout, scripts, args_json, cwd)
    return _tasks(layout, lambda stage, arch: 1, {stages.CLANG_EMBED: [embed_tool]}), layout, json.loads(args_json)["args"]


def split_compile_threads(nvcc_args):
    """The threads of nvcc's --split-compile among the arguments (the last one's), 1 when none: off."""
    threads = 1
    for i, arg in enumerate(nvcc_args):
        name, has_eq, value = arg.partition("=")
        if name in ("--split-compile", "-split-compile"):
            value = value if has_eq else (nvcc_args[i + 1] if i + 1 < len(nvcc_args) else "")
            if not value.isdigit():
                raise RunError("nvcc_plan --run: `%s` needs a thread count (0: every CPU, 1: off)" % arg, code=2)
            threads = int(value)
    return threads


def stage_cpus(stage, threads, version, jobs, arch=""):
    """How many of -j's CPUs one action of the stage takes: its tool's split threads where nvcc gives it them.

    The same rule as the rules' resource_set (cuda_rules/private/compile/split_compile.bzl): a
    stage whose record names the first CUDA version that splits its tool, with this toolkit.
    """
    if threads == 1 or not stage.split_compile or version is None or not stages.splits_for_arch(stage, arch):
        return 1
    if tuple(map(int, version.split("."))) < tuple(map(int, stage.split_compile.split("."))):
        return 1
    return jobs if threads == 0 else threads


def _dryrun(nvcc, nvcc_args, cwd):
    proc = subprocess.run([nvcc, "--dryrun"] + list(nvcc_args), cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        # nvcc rejected the arguments themselves: its own message and status, as nvcc would give.
        raise RunError(proc.stderr + proc.stdout, code=proc.returncode)
    return proc.stderr + proc.stdout


def _exit_code(status):
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code  # killed by a signal: as a shell reports it


def _bottom_levels(tasks):
    users = {k: [] for k in tasks}
    for t in tasks.values():
        for d in t.deps:
            users[d].append(t.key)
    level = {}

    def visit(k):
        if k not in level:
            level[k] = tasks[k].weight + max((visit(u) for u in users[k]), default=0.0)
        return level[k]

    for k in tasks:
        visit(k)
    return level


class StageFailed(Exception):
    def __init__(self, task, stderr_text):
        super().__init__(task.key)
        self.task = task
        self.stderr_text = stderr_text


def ptxas_dir(paths, cwd, scratch):
    """A directory to run ptxas in where `paths` resolve and nothing else of `cwd` does.

    With -lineinfo or -G, ptxas stat()s the files the PTX names (the source
    as /proc/self/cwd/..., headers) and records their modification times and
    sizes in the cubin. The rules' CudaPtxas action only has the PTX and
    ptxas, so those fields are 0; so they are here: ptxas runs in `scratch`,
    which holds links to the stage files and to ptxas where they are named
    relative to the working directory, and nothing else. (A toolkit named by
    an absolute path stays visible: its headers' times are recorded, as
    nvcc's own cubins record them.)

    Args:
      paths: the work dir and ptxas, as the scripts spell them (relative,
        /proc/self/cwd/..., or absolute: needs no link).
      cwd: the working directory of the other stages.
      scratch: an empty directory.

    Returns:
      The directory to run ptxas in (`cwd` if a path cannot be mirrored).
    """
    for path in paths:
        if path.startswith("/proc/self/cwd/"):
            path = path[len("/proc/self/cwd/") :]
        elif os.path.isabs(path):
            continue
        parts = os.path.normpath(path).split("/")
        if parts[0] in ("..", "."):
            return cwd  # outside (or all of) the working directory: ptxas sees the sources
        os.makedirs(os.path.join(scratch, *parts[:-1]), exist_ok=True)
        link = os.path.join(scratch, *parts)
        if not os.path.lexists(link):
            os.symlink(os.path.join(cwd, path), link)
    return scratch


def execute(tasks, *, jobs, cwd, t0, stdout, stderr, ptxas_cwd=None):
    """Runs every task but "plan" (already done), using at most `jobs` CPUs at a time; raises StageFailed.

    A task takes its `cpus` (split compilation's threads), the others one. One
    that wants more than is free waits, unless nothing runs (as Bazel admits an
    action larger than the machine).

    Waits with wait4(-1) (for each stage's CPU time), so it must be the only
    code of this process starting child processes while it runs.
    """
    level = _bottom_levels(tasks)
    done = {k for k, t in tasks.items() if t.returncode == 0}
    pending = [k for k in tasks if k not in done]
    running = {}  # pid -> (task, Popen, out file, err file)
    failed = None
    try:
        while pending or running:
            if failed is None:
                ready = sorted(
                    (k for k in pending if all(d in done for d in tasks[k].deps)),
                    key=lambda k: (-level[k], k),
                )
                for key in ready:
                    task = tasks[key]
                    used = sum(t.cpus for t, _, _, _ in running.values())
                    if running and used + task.cpus > jobs:
                        if used >= jobs:
                            break
                        continue  # a smaller one may still fit
                    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
                    task.start = time.monotonic() - t0
                    here = ptxas_cwd if ptxas_cwd and task.mnemonic == stages.PTXAS.mnemonic else cwd
                    script = task.script if os.path.isabs(task.script) else os.path.join(cwd, task.script)
                    proc = subprocess.Popen(
                        ["/bin/sh", script] + list(task.args), cwd=here, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                        start_new_session=True,
                    )
                    running[proc.pid] = (task, proc, out, err)
                    pending.remove(key)
            if not running:
                break
            pid, status, usage = os.wait4(-1, 0)
            if pid not in running:
                continue
            task, proc, out, err = running.pop(pid)
            task.end = time.monotonic() - t0
            task.cpu = usage.ru_utime + usage.ru_stime
            task.returncode = proc.returncode = _exit_code(status)
            out.seek(0)
            err.seek(0)
            out_bytes, err_bytes = out.read(), err.read()
            out.close()
            err.close()
            if task.returncode == 0:
                done.add(task.key)
                _write(stdout, out_bytes)
                _write(stderr, err_bytes)
            elif failed is None:
                failed = StageFailed(task, err_bytes)
                _write(stdout, out_bytes)
                # nvcc stops at the first failing command: stop the stages still running.
                for _, p, _, _ in running.values():
                    _kill(p)
        if failed:
            raise failed
    finally:
        for _, p, o, e in running.values():
            _kill(p)
            p.wait()
            o.close()
            e.close()


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


def _write(stream, data):
    if not data:
        return
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        stream.write(data.decode("utf-8", "replace"))


def critical_path(tasks):
    """(seconds, [keys]): the chain of stages through the DAG with the largest sum of wall times."""
    best = {}

    def visit(k):
        if k not in best:
            t = tasks[k]
            prev = max((visit(d) for d in t.deps), key=lambda x: x[0], default=(0.0, []))
            best[k] = (prev[0] + (t.wall or 0.0), prev[1] + [k])
        return best[k]

    ran = [k for k, t in tasks.items() if t.wall is not None]
    return max((visit(k) for k in ran), key=lambda x: x[0], default=(0.0, []))


TABLE_COLUMNS = ["stage", "mnemonic", "arch", "start_s", "end_s", "wall_s", "cpu_s"]


def table_csv(tasks):
    """CSV, one row per stage that ran, in start order."""
    rows = [",".join(TABLE_COLUMNS)]
    for t in sorted((t for t in tasks.values() if t.wall is not None), key=lambda t: (t.start, t.key)):
        rows.append("%s,%s,%s,%.3f,%.3f,%.3f,%.3f" % (t.key, t.mnemonic, t.arch, t.start, t.end, t.wall, t.cpu or 0.0))
    return "\n".join(rows) + "\n"


def summary(tasks, wall, jobs):
    ran = [t for t in tasks.values() if t.wall is not None]
    cpu = sum(t.cpu or 0.0 for t in ran)
    length, chain = critical_path(tasks)
    return (
        "nvcc_plan: %d stages, -j %d: wall %.2f s, CPU %.2f s (%.1fx), sum of stage wall times %.2f s, "
        "critical path %.2f s: %s"
        % (len(ran), jobs, wall, cpu, cpu / wall if wall else 0.0, sum(t.wall for t in ran), length, " -> ".join(chain))
    )


def graphviz(tasks):
    """The executed DAG: one node per stage with its times; the critical path in bold red."""
    _, chain = critical_path(tasks)
    on_path = set(chain)
    lines = ["digraph nvcc_run {", "  rankdir=LR;", "  node [shape=box, fontname=monospace];"]
    for k, t in tasks.items():
        label = t.mnemonic + ("\\n" + t.arch if t.arch else "")
        if t.wall is not None:
            label += "\\n%.2f s wall, %.2f s CPU" % (t.wall, t.cpu or 0.0)
        style = ", color=red, penwidth=2" if k in on_path else ""
        lines.append('  "%s" [label="%s"%s];' % (k, label, style))
    for k, t in tasks.items():
        for d in t.deps:
            style = " [color=red, penwidth=2]" if d in on_path and k in on_path else ""
            lines.append('  "%s" -> "%s"%s;' % (d, k, style))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _emit(path, text, stdout, cwd):
    if path == "-":
        stdout.write(text)
        stdout.flush()
    else:
        with open(os.path.join(cwd, path), "w") as f:
            f.write(text)


@dataclasses.dataclass
class RunOptions:
    """How `run` compiles: nvcc_plan --run's flags.

    nvcc: nvcc to plan with (its toolkit runs every stage).
    jobs: most stages running at once (default: the CPUs this process may use).
    cwd: working directory of the compile (default: the current one).
    keep_dir: keep every stage's files and scripts here (default: a temporary directory, removed).
    module_id_label: the cuda_library target whose module id to use (the id CudaPlan writes for it and the source).
    pinned_arch_list: the __CUDA_ARCH_LIST__ every stage gets instead of nvcc's (e.g. "750,800,860,900": what
      cuda_library gives a compile of a subset of the shipped set), or None.
    table: write the per-stage CSV here ("-": stdout; relative to `cwd`).
    graph: write the executed graph as Graphviz here ("-": stdout; relative to `cwd`).
    toolchain_flags: (host flags, device flags), as a target's layout records its C++ toolchain's flags:
      the run of -Xcompiler values in nvcc_args that the device preprocess gets as the device flags only
      (cuda_rules/private/compile/host_flags.bzl), or None (nvcc's own placement).
    stdout, stderr: where the stages' output and the runner's messages go.
    """

    nvcc: str
    jobs: int = None
    cwd: str = None
    keep_dir: str = None
    module_id_label: str = None
    pinned_arch_list: str = None
    table: str = None
    graph: str = None
    toolchain_flags: tuple = None
    stdout: object = None
    stderr: object = None


def run(nvcc_args, options):
    """Compiles like `nvcc <nvcc_args>` would (one `-c SOURCE`, optionally `-o OBJECT`); returns the exit status.

    `options`: a RunOptions.
    """
    stdout = options.stdout or sys.stdout
    stderr = options.stderr or sys.stderr
    cwd = options.cwd or os.getcwd()
    jobs = options.jobs or len(os.sched_getaffinity(0))
    keep_dir = options.keep_dir
    if jobs < 1:
        print("nvcc_plan --run: -j must be at least 1", file=stderr)
        return 2
    pinned = options.pinned_arch_list
    if pinned and not re.fullmatch(r"[0-9]+(,[0-9]+)*", pinned):
        print("nvcc_plan --run: --pinned_arch_list must be numbers separated by commas, as in __CUDA_ARCH_LIST__ "
              "(e.g. 750,800,860,900), not %r" % pinned, file=stderr)
        return 2
    t0 = time.monotonic()
    cpu0 = _children_cpu()
    work_dir = keep_dir or tempfile.mkdtemp(prefix="nvcc_plan.")
    tasks = {}
    failure = None
    try:
        args, notes = check_nvcc_args(nvcc_args)
        for note in notes:
            print("nvcc_plan --run: " + note, file=stderr)
        tasks, layout = prepare(options.nvcc, args, cwd=cwd, work_dir=work_dir, module_id_label=options.module_id_label,
                                pinned_arch_list=pinned, toolchain_flags=options.toolchain_flags, jobs=jobs)
        plan = tasks["plan"]
        plan.start, plan.end, plan.cpu, plan.returncode = 0.0, time.monotonic() - t0, _children_cpu() - cpu0, 0
        scratch = tempfile.mkdtemp(prefix="nvcc_plan.ptxas.")
        try:
            ptxas_cwd = ptxas_dir([work_dir, layout.toolkit_root + "/bin/ptxas"], cwd, scratch)
            execute(tasks, jobs=jobs, cwd=cwd, t0=t0, stdout=stdout, stderr=stderr, ptxas_cwd=ptxas_cwd)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    except RunError as e:
        print(str(e).rstrip("\n"), file=stderr)
        return e.code
    except StageFailed as e:
        failure = e
    finally:
        if not keep_dir:
            shutil.rmtree(work_dir, ignore_errors=True)
    wall = time.monotonic() - t0
    if options.table:
        _emit(options.table, table_csv(tasks), stdout, cwd)
        print(summary(tasks, wall, jobs), file=stderr)
    if options.graph:
        _emit(options.graph, graphviz(tasks), stdout, cwd)
    if failure:
        t = failure.task
        _write(stderr, failure.stderr_text)
        print(
            "nvcc_plan --run: stage %s (%s) failed with exit code %d%s"
            % (t.key, t.mnemonic, t.returncode, "; its script: " + t.script if keep_dir else ""),
            file=stderr,
        )
        return t.returncode
    return 0


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
