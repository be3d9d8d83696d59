"""nvcc's own plan: the commands `nvcc --dryrun` prints, parsed into a graph.

`nvcc --dryrun` prints what nvcc would run: environment lines (`#$ NAME=value`)
and commands (`#$ tool args...`). This module parses that text into a Plan of
Commands, names each command's step (stages.STEP_*: the host compiler's -E of
the host side or for one arch, cudafe++, cicc, ptxas, fatbinary, the host
compile; nvlink and the link stub's compile of `nvcc -dlink`), and links the
commands through the temporary files they pass to each other. A Command is a
line of nvcc's plan; a stage (stages.py) is what the rules make of the
command of its step: CudaPlan rewrites it into the stage's script.
"""

import dataclasses
import os
import re
import shlex
import subprocess

from tools.nvcc_plan import stages

# The Bazel mnemonic of the stage each step becomes, None for a command that
# is no stage (nvcc's temporary file cleanup, commands these tools do not know).
MNEMONICS = dict(stages.step_mnemonics(), **{stages.STEP_CLEANUP: None, stages.STEP_UNKNOWN: None})

_ENV_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_VAR = re.compile(r"\$\(?([A-Za-z_][A-Za-z0-9_]*)\)?")


class PlanError(ValueError):
    """nvcc's plan has a shape these tools do not understand."""


@dataclasses.dataclass
class Command:
    """One command of nvcc's plan, and its step (stages.STEP_*)."""

    index: int
    step: str
    argv: list
    arch: str = ""  # compute_XX for device preprocess/cicc, sm_XX for ptxas
    virtual_arch: str = ""  # for ptxas: the compute_XX whose PTX it assembles
    inputs: list = dataclasses.field(default_factory=list)
    outputs: list = dataclasses.field(default_factory=list)

    @property
    def mnemonic(self):
        return MNEMONICS[self.step]

    @property
    def tool(self):
        return os.path.basename(self.argv[0])

    @property
    def name(self):
        return "%s(%s)" % (self.step, self.arch) if self.arch else self.step


@dataclasses.dataclass
class Plan:
    env: list  # [(name, value)] in order
    commands: list  # [Command]
    # nvcc's PTX checks (is_ptx_check), out of `commands`: {virtual arch: Command}, each with the
    # PTX it reads (virtual_arch set). CudaCicc of that arch runs it (compile_scripts.cicc_script).
    ptx_checks: dict = dataclasses.field(default_factory=dict)

    def env_dict(self):
        return dict(self.env)

    def producer(self, path):
        for command in self.commands:
            if path in command.outputs:
                return command
        return None

    def edges(self):
        """(producer index, consumer index, file) for every file passed between stages."""
        out = []
        for consumer in self.commands:
            for path in consumer.inputs:
                for producer in self.commands:
                    if producer.index < consumer.index and path in producer.outputs:
                        out.append((producer.index, consumer.index, path))
        # The host compile #includes the registration stub and the embedded
        # fatbinary by bare file name: the stub named in cudafe++'s
        # --stub_file_name (written by the cicc with that name) and the
        # fatbin.c named in cicc's --include_file_name.
        included = set()
        for command in self.commands:
            if command.step == stages.STEP_CUDAFE:
                included.add(os.path.basename(value_after(command.argv, "--stub_file_name") or ""))
            elif command.step == stages.STEP_CICC:
                included.add(os.path.basename(value_after(command.argv, "--include_file_name") or ""))
        included.discard("")
        for consumer in self.by_step(stages.STEP_HOST_CC):
            for producer in self.commands:
                for path in producer.outputs:
                    if os.path.basename(path) in included and producer.index < consumer.index:
                        out.append((producer.index, consumer.index, path))
        return out

    def by_step(self, step):
        return [s for s in self.commands if s.step == step]

    @property
    def relocatable(self):
        """Whether the plan compiles relocatable device code (-rdc=true: cudafe++ gets --device-c)."""
        return any("--device-c" in s.argv for s in self.by_step(stages.STEP_CUDAFE))


def _expand(value, env):
    return _VAR.sub(lambda m: env.get(m.group(1), m.group(0)), value)


def _split_env_value(value):
    # Values may be quoted lists ("-I/x"  "-isystem" "/y"); keep them verbatim
    # but unquote a single quoted word.
    stripped = value.strip()
    try:
        words = shlex.split(stripped)
    except ValueError:
        return stripped
    return words[0] if len(words) == 1 else stripped


def parse_dryrun(text):
    """Parses `nvcc --dryrun` output (stderr) into a Plan, each command's step named."""
    env = []
    env_map = {}
    commands = []
    for raw in text.splitlines():
        if not raw.startswith("#$ "):
            continue
        line = raw[3:].strip()
        if not line:
            continue
        match = _ENV_LINE.match(line)
        if match and " " not in match.group(1):
            name, value = match.group(1), _split_env_value(match.group(2))
            env.append((name, value))
            env_map[name] = value
            continue
        # `nvcc -t N` adds shell redirections; they are not part of a command.
        try:
            argv = shlex.split(_expand(line, env_map))
        except ValueError as e:
            if not line.startswith("rm "):
                raise PlanError("cannot split nvcc plan line %r: %s" % (line, e))
            # nvcc's cleanup of a temporary file, printed unquoted (a ' in the
            # source's name): nothing of it is run or renamed.
            argv = line.split()
        commands.append(argv)
    if not commands:
        raise PlanError("nvcc printed no commands (is this `nvcc --dryrun` output?)")
    return Plan(env=env, commands=[classify(i, argv) for i, argv in enumerate(commands)])


def source_stem(path):
    """The stem nvcc names a source's temporary files after: its file name without the last extension."""
    base = os.path.basename(path)
    return base.rpartition(".")[0] or base


def value_after(argv, flag):
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg[len(flag) + 1 :]
    return None


def _last_positional(argv, skip_values_of):
    """The last argument that is neither a flag nor the value of one."""
    positional = None
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg in skip_values_of:
            i += 2
            continue
        if not arg.startswith("-"):
            positional = arg
        i += 1
    return positional


_GCC_VALUE_FLAGS = {"-o", "-include", "-isystem", "-x", "-I", "-D", "-U", "-iquote", "-MF", "-MT", "-imacros", "-Xlinker"}
_CUDAFE_VALUE_FLAGS = {
    "--orig_src_file_name",
    "--orig_src_path_name",
    "--gen_c_file_name",
    "--stub_file_name",
    "--module_id_file_name",
    "--include_file_name",
    "--gen_device_file_name",
    "-arch",
    "-o",
    "--gnu_version",
    "--clang_version",
    "--msvc_target_version",
    "--nv_arch",
    "--version_ident",
    "--gen_module_id_file_name",
}


def _is_host_compiler(tool):
    return re.match(r"^(.*-)?(gcc|g\+\+|cc|c\+\+|clang|clang\+\+|cl|icpx|nvc\+\+)(-[0-9.]+)?$", tool) is not None


def _cuda_arch_macro(argv):
    for arg in argv:
        if arg.startswith("-D__CUDA_ARCH__="):
            return int(arg.split("=", 1)[1])
    return None


def classify(index, argv):
    """Names the step of one plan command and finds its input and output files."""
    tool = os.path.basename(argv[0])
    command = Command(index=index, step=stages.STEP_UNKNOWN, argv=argv)
    if tool == "rm":
        command.step = stages.STEP_CLEANUP
        command.inputs = argv[1:]
    elif _is_host_compiler(tool):
        out = value_after(argv, "-o")
        src = _last_positional(argv, _GCC_VALUE_FLAGS)
        command.inputs = [src] if src else []
        command.outputs = [out] if out else []
        if "-E" in argv:
            if _cuda_arch_macro(argv) is not None:
                command.step = stages.STEP_DEVICE_CPP
            else:
                command.step = stages.STEP_HOST_CPP
        elif "-c" in argv:
            # -dlink: crt/link.stub compiled with the linked fatbinary.
            command.step = stages.STEP_LINK_STUB_CC if src and os.path.basename(src) == "link.stub" else stages.STEP_HOST_CC
    elif tool == "cudafe++":
        command.step = stages.STEP_CUDAFE
        src = _last_positional(argv, _CUDAFE_VALUE_FLAGS)
        command.inputs = [src] if src else []
        command.outputs = [p for p in (value_after(argv, "--gen_c_file_name"),) if p]
        module_id = value_after(argv, "--module_id_file_name")
        if module_id:
            (command.outputs if "--gen_module_id_file" in argv else command.inputs).append(module_id)
    elif tool == "cicc":
        command.step = stages.STEP_CICC
        command.arch = value_after(argv, "-arch") or ""
        src = _last_positional(argv, _CUDAFE_VALUE_FLAGS)
        command.inputs = [src] if src else []
        module_id = value_after(argv, "--module_id_file_name")
        if module_id:
            command.inputs.append(module_id)
        for flag in ("-o", "--gen_c_file_name", "--stub_file_name", "--gen_device_file_name"):
            value = value_after(argv, flag)
            if value:
                command.outputs.append(value)
    elif tool == "ptxas":
        command.step = stages.STEP_PTXAS
        command.arch = value_after(argv, "-arch") or ""
        out = value_after(argv, "-o")
        src = _last_positional(argv, {"-o", "-arch", "-maxrregcount", "--maxrregcount", "-O"})
        command.inputs = [src] if src else []
        command.outputs = [out] if out else []
    elif tool == "fatbinary":
        command.step = stages.STEP_FATBINARY
        for arg in argv[1:]:
            if arg.startswith("--image3="):
                fields = dict(f.split("=", 1) for f in arg[len("--image3=") :].split(","))
                command.inputs.append(fields["file"])
            elif arg.startswith("--embedded-fatbin="):
                command.outputs.append(arg.split("=", 1)[1])
            elif arg.startswith("--create="):
                command.outputs.append(arg.split("=", 1)[1])
    elif tool == "nvlink":
        command.step = stages.STEP_NVLINK
        command.arch = value_after(argv, "--arch") or value_after(argv, "-arch") or ""
        out = value_after(argv, "-o")
        command.outputs = [out] if out else []
    return command


def is_ptx_check(command):
    """A ptxas run that writes nothing: nvcc's check of PTX it embeds for a virtual arch
    with no real arch of its own (`ptxas -arch=compute_90 x.ptx`, for code=compute_90
    alone). It produces no file any later step reads."""
    return command.step == stages.STEP_PTXAS and not command.outputs and command.arch.startswith("compute_")


def link_commands(plan):
    """Fills in arch information that only the dataflow tells.

    Device preprocesses take the arch of the cicc that reads their output;
    ptxas commands record the virtual arch of the PTX they assemble. nvcc's
    PTX checks (is_ptx_check) are taken out of the commands into
    plan.ptx_checks, by the virtual arch whose PTX they read: they write
    nothing, so they are no stage of their own; the CudaCicc of that arch
    runs its check after cicc, so that PTX ptxas refuses (a ptxas warning
    under -Werror=all-warnings, a bad -Xptxas option) fails the build as it
    fails nvcc.
    """
    checks = [s for s in plan.commands if is_ptx_check(s)]
    plan.commands = [s for s in plan.commands if not is_ptx_check(s)]
    for check in checks:
        producer = plan.producer(check.inputs[0]) if check.inputs else None
        if producer is None or producer.step != stages.STEP_CICC or producer.arch in plan.ptx_checks:
            raise PlanError("nvcc's PTX check #%d reads %s, which no cicc (or one with another check) produced" % (check.index, check.inputs))
        check.virtual_arch = producer.arch
        plan.ptx_checks[producer.arch] = check
    for command in plan.commands:
        if command.step == stages.STEP_DEVICE_CPP:
            readers = [s for s in plan.commands if s.step == stages.STEP_CICC and command.outputs and command.outputs[0] in s.inputs]
            if len(readers) != 1:
                raise PlanError("device preprocess #%d is read by %d cicc commands" % (command.index, len(readers)))
            command.arch = readers[0].arch
        elif command.step == stages.STEP_PTXAS:
            producer = plan.producer(command.inputs[0]) if command.inputs else None
            if producer is None or producer.step != stages.STEP_CICC:
                raise PlanError("ptxas #%d reads %s, which no cicc produced" % (command.index, command.inputs))
            command.virtual_arch = producer.arch
    return plan


def plan_from_text(text):
    return link_commands(parse_dryrun(text))


def run_dryrun(nvcc, nvcc_args, cwd=None, env=None):
    """Runs `nvcc --dryrun` and returns its plan text (nvcc prints it on stderr)."""
    proc = subprocess.run(
        [nvcc, "--dryrun"] + list(nvcc_args),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        message = "`nvcc --dryrun %s` failed:\n%s" % (" ".join(nvcc_args), proc.stderr + proc.stdout)
        ccbin = value_after(list(nvcc_args), "-ccbin") or value_after(list(nvcc_args), "--compiler-bindir")
        if ccbin and "/" in ccbin and not os.path.exists(os.path.join(cwd or "", ccbin)):
            message = message.rstrip("\n") + "\n" + MISSING_COMPILER % ccbin
        raise PlanError(message)
    return proc.stderr + proc.stdout


# What to do when the host compiler is not where an action runs (the planner's
# message below, and the stage scripts' hint: scripts.MISSING_PROGRAM_HINT).
HOST_COMPILER_FIX = (
    "Fix: build with the hermetic host toolchain (--@rules_cuda_stages//cuda_rules:host_toolchain=gcc10), whose "
    "compiler comes with every action, or run these actions where that compiler is."
)

# nvcc runs the host compiler even for its plan: on a remote executor without
# it, CudaPlan is the first stage to fail.
MISSING_COMPILER = (
    "the host compiler %s (the C++ toolchain's, by its path on the machine Bazel runs on) is not on the machine "
    "that ran this action, e.g. a remote executor. " + HOST_COMPILER_FIX
)


def to_json(plan):
    return {
        "env": [{"name": n, "value": v} for n, v in plan.env],
        # "stages": the command line's output format (docs/nvcc_plan.md), older than the name Command.
        "stages": [
            {
                "index": s.index,
                "step": s.step,
                "mnemonic": s.mnemonic,
                "arch": s.arch,
                "virtual_arch": s.virtual_arch,
                "tool": s.tool,
                "inputs": s.inputs,
                "outputs": s.outputs,
                "argv": s.argv,
            }
            for s in plan.commands
        ],
        "edges": [{"from": a, "to": b, "file": f} for a, b, f in plan.edges()],
    }


def to_table(plan):
    rows = [("#", "step", "mnemonic", "arch", "tool", "inputs", "outputs")]
    for s in plan.commands:
        arch = s.arch if not s.virtual_arch else "%s<-%s" % (s.arch, s.virtual_arch)
        rows.append(
            (
                str(s.index),
                s.step,
                s.mnemonic or "-",
                arch or "-",
                s.tool,
                " ".join(os.path.basename(p) for p in s.inputs) or "-",
                " ".join(os.path.basename(p) for p in s.outputs) or "-",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def to_graphviz(plan):
    lines = ["digraph nvcc_plan {", "  rankdir=LR;", "  node [shape=box, fontname=monospace];"]
    for s in plan.commands:
        if s.step == stages.STEP_CLEANUP:
            continue
        label = s.mnemonic or s.tool
        if s.arch:
            label += "\\n" + (s.arch if not s.virtual_arch else "%s (from %s)" % (s.arch, s.virtual_arch))
        lines.append('  s%d [label="%s"];' % (s.index, label))
    for a, b, f in plan.edges():
        if plan.commands[b].step == stages.STEP_CLEANUP:
            continue
        lines.append('  s%d -> s%d [label="%s"];' % (a, b, os.path.basename(f)))
    lines.append("}")
    return "\n".join(lines) + "\n"
