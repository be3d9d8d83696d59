"""Writing stage scripts: what every script of a compile or a device link shares.

A stage script is `/bin/sh` code holding one stage's whole command line (so
the action's key is that command plus its input files): a comment naming the
stage, the environment nvcc would give the tool, and the command, optionally
wrapped so that a failure the host compiler or C library is known to cause
ends with a hint.
"""

import dataclasses
import os
import re
import shlex

from tools.nvcc_plan import dryrun
from tools.nvcc_plan import stage_graph
from tools.nvcc_plan import stages


class PlanMismatch(dryrun.PlanError):
    """nvcc's plan does not have the stages the layout declares (or has stages these rules cannot run)."""


def fail(label, message):
    """Raises the PlanMismatch of `label`'s target (every planner error names the target this way)."""
    raise PlanMismatch("rules_cuda_stages: %s: %s" % (label, message))


def _command_key(stage, command):
    """The instance key of `stage` that a command of its step is for (as stage_graph.instance_key spells it)."""
    parts = {
        stages.SOURCE: [],
        stages.LINK: [],
        stages.VIRTUAL: [command.arch],
        stages.REAL: [command.virtual_arch, command.arch],
        stages.LINK_ARCH: [command.arch],
    }[stage.scope]
    return "/".join([stage.name] + parts)


def _sub_key(stage, arch):
    """The key of a stage's sub_step command for one virtual arch: "device_cpp/compute_80"."""
    return stage_graph.instance_key(stage.sub_step, {"virtual": arch})


def match_steps(plan, table, units, label, fix, compiler="nvcc", virtuals=()):
    """The one check that a plan can run as the table's stages: {instance key: its command}.

    Every command of the plan must be of a step some stage of `table` is made
    from (nvcc's cleanup aside), and each such stage must have exactly one
    command per instance the table gives the unit, and none for any other.
    Every instance counts, the ones the unit leaves out (stage_graph: nothing
    reads them) too: their commands are in the plan, and a planner function
    may read them.

    Args:
      plan: the dryrun.Plan (nvcc's, or clang's with its arch keys already nvcc's).
      table: the stage table.
      units: the instances per stage: {stage: [inst]} (stage_graph.instances of the unit's archs).
      label: the target, for messages.
      fix: what the message of an unknown step tells the user to do.
      compiler: whose plan it is, for messages.
      virtuals: the unit's virtual archs: a stage's sub_step has one command per arch.

    Returns:
      {instance key: Command}; a sub_step's commands by _sub_key.
    """
    steps = {step for s in table.stages for step in s.steps}
    odd = [c for c in plan.commands if c.step != stages.STEP_CLEANUP and c.step not in steps]
    if odd:
        fail(
            label,
            "%s's plan for these options runs %s, which is not a stage these rules can run. %s"
            % (compiler, ", ".join(repr(" ".join(c.argv[:3])) for c in odd), fix),
        )
    found = {}
    for stage in table.stages:
        if not stage.step:
            continue
        want = [stage_graph.instance_key(stage.name, i) for i in units[stage]]
        have = {}
        for command in plan.by_step(stage.step):
            have.setdefault(_command_key(stage, command), []).append(command)
        if sorted(have) != sorted(want) or any(len(c) != 1 for c in have.values()):
            if stage.scope in (stages.SOURCE, stages.LINK):
                fail(label, "expected one %s command in %s's plan, found %d" % (stage.step, compiler, len(plan.by_step(stage.step))))
            fail(
                label,
                "%s plans %s for %s, the rule declared %s"
                % (compiler, stage.name, sorted(k.split("/", 1)[1] for k in have), sorted(k.split("/", 1)[1] for k in want)),
            )
        found.update({k: c[0] for k, c in have.items()})
        if stage.sub_step:
            subs = {}
            for command in plan.by_step(stage.sub_step):
                subs.setdefault(_sub_key(stage, command.arch), []).append(command)
            want = [_sub_key(stage, a) for a in virtuals]
            if sorted(subs) != sorted(want) or any(len(c) != 1 for c in subs.values()):
                fail(label, "%s plans %s for %s, the rule declared %s" % (
                    compiler, stage.sub_step, sorted(k.split("/", 1)[1] for k in subs), sorted(virtuals)))
            found.update({k: c[0] for k, c in subs.items()})
    return found


@dataclasses.dataclass
class Unit:
    """One source's (or device link's) plan and layout, and what every stage's planner function needs of them."""

    plan: dryrun.Plan
    layout: object  # layout.CompileLayout or layout.LinkLayout
    graph: dict  # stage_graph.unit_graph's, for the layout
    commands: dict  # {instance key: the Command of the plan it is made from}, every instance's
    rename: "Renamer"
    toolkit: "ToolkitPaths"
    exports: list
    pinned_steps: set  # the steps whose command gets the layout's pinned __CUDA_ARCH_LIST__

    @classmethod
    def of(cls, plan, layout, units, fix, *, exports=None, pinned_steps=(), compiler="nvcc"):
        """Checks the plan against the layout's table (match_steps) and names every file its stages write.

        Args:
          plan: the plan.
          layout: the unit's layout (its graph(), stage_table, files, toolkit_root, label).
          units: {stage: [inst]} of the table (match_steps).
          fix: what the message of an unknown step tells the user to do.
          exports: the environment every script sets (default: env_exports of the toolkit; a
            function of the ToolkitPaths, for more).
          pinned_steps: see the field.
          compiler: whose plan it is, for messages.

        Returns:
          The Unit.
        """
        table = layout.stage_table
        virtuals = [a.virtual for a in layout.archs] if any(s.sub_step for s in table.stages) else []
        commands = match_steps(plan, table, units, layout.display_label, fix, compiler, virtuals)
        graph = layout.graph()
        renames = {}
        for action in graph["actions"]:
            command = commands.get(action["script"])
            if command is not None:
                renames.update(_names_of(action["stage"], action["inst"], command, layout.files))
            stage = action["stage"]
            for arch in virtuals if stage.sub_step else ():
                renames.update(_names_of(stage, {"virtual": arch}, commands[_sub_key(stage, arch)], layout.files, sub=True))
        toolkit = ToolkitPaths(plan.env_dict(), layout.toolkit_root)
        exports = exports(toolkit) if exports else env_exports(layout.toolkit_root)
        return cls(plan, layout, graph, commands, Renamer(renames), toolkit, exports, set(pinned_steps))

    def command_of(self, stage, inst):
        """The plan's command an instance of `stage` is made from (whether the unit has the instance or not)."""
        return self.commands[stage_graph.instance_key(stage.name, inst)]

    def sub_command_of(self, stage, arch):
        """The plan's command of `stage`'s sub_step for one of the unit's virtual archs."""
        return self.commands[_sub_key(stage, arch)]

    def only(self, stage):
        return self.command_of(stage, {})

    def command(self, command, extra=None):
        """A command of the plan as a script runs it: files renamed (and `extra`), toolkit spelled, arch list pinned."""
        argv = [self.toolkit.rewrite(self.rename(a, extra)) for a in command.argv]
        pinned = getattr(self.layout, "pinned_arch_list", "")
        if pinned and command.step in self.pinned_steps:
            # The shipped set's list instead of nvcc's (the compiled archs are a
            # subset of it): the same command as in a build of the whole set.
            at = [i for i, a in enumerate(argv) if a.startswith("-D__CUDA_ARCH_LIST__=")]
            if len(at) != 1:
                fail(self.layout.display_label, "cannot pin __CUDA_ARCH_LIST__: nvcc's %s command defines it %d times" % (command.step, len(at)))
            argv[at[0]] = "-D__CUDA_ARCH_LIST__=" + pinned
        # The tool itself by its plain path (an action may hold no file of
        # bin/, so <root>/bin/../nvvm/bin/cicc would not resolve).
        argv[0] = self.toolkit.tool(argv[0]) if argv[0] in _TOOLKIT_TOOLS else normpath(argv[0])
        return argv

    def script(self, action, argv, post=()):
        """{script path: the script of `action`, running `argv`}."""
        stage, inst = action["stage"], action["inst"]
        layout = self.layout
        return {
            layout.scripts[action["script"]]: stage_script(
                layout.label, layout.subject, stage.mnemonic, inst.get("real") or inst.get("virtual") or "",
                self.exports, argv, with_hints=stage.hints, post=post,
            )
        }


# The toolkit's programs a plan names by bare name (nvcc puts bin/ on PATH).
_TOOLKIT_TOOLS = ("cudafe++", "ptxas", "fatbinary", "nvlink")
# The script's temporary directory (temp_dir_lines), as commands spell it before quoting.
TMP = "@TMP@"


def _names_of(stage, inst, command, files, sub=False):
    """{name in `command`: the name in the script} of the files an instance of `stage` writes or names (its record).

    `sub`: `command` is of the stage's sub_step, for the arch of `inst`: only its per-arch outputs.
    """
    out = {}
    for o in stage.outputs:
        if bool(o.scope) != sub:
            continue
        if o.named_by:
            named = command.outputs[0] if o.named_by == stages.STEP_OUTPUT else dryrun.value_after(command.argv, o.named_by)
            out[named] = files[stage_graph.instance_key(o.key, inst)]
    for flag, how, target in () if sub else stage.names:
        if how == stages.PATH:
            name = files[target]
        elif how == stages.BASENAME:
            name = os.path.basename(files[target])
        else:
            name = TMP + "/" + target
        out[dryrun.value_after(command.argv, flag)] = name
    return out


# Host compiler / C library rejections and what to do about them.
HINTS = (
    (
        "unsupported GNU version",
        "the host compiler is newer than this CUDA version supports (see crt/host_config.h). "
        "Fix: point Bazel's C++ toolchain at a supported gcc, e.g. --repo_env=CC=gcc-14, "
        "or use a newer CUDA toolkit.",
    ),
    (
        "rsqrt",
        "the C library's headers (glibc >= 2.41 declares C23 rsqrt) clash with this CUDA version's "
        "crt/math_functions.h. Fix: compile against an older C library (--sysroot, as tools/bazelw "
        "does) or use a CUDA toolkit whose math_functions.h has _NV_RSQRT_SPECIFIER.",
    ),
)

# A program the stage runs is not on the machine that ran it: the shell's
# exit status 127 ("not found"). On a remote executor this is the C++
# toolchain's compiler, named by its path on Bazel's machine.
MISSING_PROGRAM_HINT = (
    "a program this stage runs is not on the machine that ran it (exit status 127; the shell names it above). "
    "A remote executor runs the C++ toolchain's compiler at its path on Bazel's machine. " + dryrun.HOST_COMPILER_FIX
)

# The working directory as every stage spells it: the same on every machine,
# checkout and sandbox (cicc -G and gcc -g record it in debug info and take it
# from $PWD when that names the same directory).
CANONICAL_CWD = "/proc/self/cwd"


def env_exports(toolkit_root, nvvmir_library_dir=None):
    """The environment every stage script sets: PWD, PATH with the toolkit, and libdevice's directory for cicc."""
    out = [("PWD", CANONICAL_CWD)]
    if nvvmir_library_dir is not None:
        out.append(("NVVMIR_LIBRARY_DIR", nvvmir_library_dir))
    out.append(("PATH", '"%s/nvvm/bin:%s/bin:$PATH"' % (toolkit_root, toolkit_root)))
    return out


def temp_dir_lines():
    """Shell lines that make a temporary directory, $tmp, removed when the script exits."""
    return ['tmp="$(mktemp -d)"', "trap 'rm -rf \"$tmp\"' EXIT"]


def preamble(comment, exports):
    lines = ["#!/bin/sh", "# rules_cuda_stages: " + comment]
    for name, value in exports:
        lines.append("%s=%s; export %s" % (name, value, name))
    return lines


def stage_script(label, what, mnemonic, arch, exports, argv, *, with_hints=False, post=()):
    """One stage's script: `argv` run with `exports` set.

    with_hints adds the hints after a failure; `post`: shell lines run after the command succeeded.
    """
    lines = preamble(stage_comment(label, what, mnemonic, arch), exports)
    command = " ".join(shlex.quote(a) for a in argv)
    if post:
        assert not with_hints
        lines.append(command + " || exit $?")
        lines += list(post)
    elif not with_hints:
        lines.append("exec " + command)
    else:
        lines += [
            'err="$(mktemp)"',
            "%s 2>\"$err\"" % command,
            "rc=$?",
            'cat "$err" >&2',
        ]
        lines += hint_lines(label, mnemonic, '"$err"')
        lines += ['rm -f "$err"', "exit $rc"]
    return "\n".join(lines) + "\n"


def hint_lines(label, mnemonic, errs):
    """Shell lines that print each of HINTS whose text the failed commands' stderr holds.

    `errs`: the shell words of the files their stderr went to; the lines read
    the exit status from $rc and print nothing when it is 0.
    """
    return [
        "if [ $rc -ne 0 ] && grep -q %s %s; then echo %s >&2; fi"
        % (shlex.quote(needle), errs, shlex.quote("rules_cuda_stages: %s (%s): %s" % (label, mnemonic, hint)))
        for needle, hint in HINTS
    ] + [
        "if [ $rc -eq 127 ]; then echo %s >&2; fi"
        % shlex.quote("rules_cuda_stages: %s (%s): %s" % (label, mnemonic, MISSING_PROGRAM_HINT)),
    ]


def stage_comment(label, what, mnemonic, arch=""):
    return "%s%s of %s (%s), from nvcc's plan." % (mnemonic, " " + arch if arch else "", what, label)


class ToolkitPaths:
    """Spells the toolkit's location as `toolkit_root`, keeping nvcc's own spelling.

    nvcc is run through toolkit_root, so its _HERE_ is normally
    toolkit_root/bin already and nothing changes (nvcc writes paths like
    <root>/bin/../targets/..., and the fidelity tests expect exactly that).
    Only if nvcc reports another location (e.g. it resolved a symlink) is that
    location replaced.
    """

    def __init__(self, plan_env, toolkit_root):
        self.root = toolkit_root
        self._here = plan_env.get("_HERE_")

    def rewrite(self, token):
        expected = self.root + "/bin"
        if not self._here or self._here == expected:
            return token
        token = re.sub(re.escape(self._here) + r"(?=/|$)", lambda _: expected, token)
        top = os.path.dirname(os.path.normpath(self._here))
        return re.sub(re.escape(top) + r"(?=/|$)", lambda _: self.root, token)

    def tool(self, name):
        """A tool of the toolkit by its plain path (an action may hold no file of bin/ besides the tool)."""
        return "%s/bin/%s" % (self.root, name)


class Renamer:
    """Replaces nvcc's temporary file names with the files Bazel declared, longest name first."""

    def __init__(self, renames):
        self._renames = {k: v for k, v in renames.items() if k}
        self._ordered = sorted(self._renames, key=len, reverse=True)

    def __call__(self, token, extra=None):
        table = self._renames
        ordered = self._ordered
        if extra:
            table = dict(table, **extra)
            ordered = sorted(table, key=len, reverse=True)
        for old in ordered:
            if old in token:
                token = token.replace(old, table[old])
        return token


# Blanks every line inside cudafe++'s `#if 0` blocks (the device code it
# keeps in the host code as text), keeping the line count: the host compiler
# sees the same code at the same lines, and the file no longer changes with
# device code alone.
_BLANK_IF0_AWK = (
    'd == 0 && $0 == "#if 0" { d = 1; print; next } '
    'd > 0 && /^#[ \t]*if/ { d++ } '
    'd > 0 && /^#[ \t]*endif/ { d--; if (d == 0) { print; next } } '
    'd > 0 { print ""; next } '
    '{ print }'
)


def blank_disabled_device_code(path):
    """Shell lines that rewrite cudafe++'s host output `path` with its `#if 0` blocks blanked."""
    q = shlex.quote(path)
    return [
        "awk %s %s > %s.tmp" % (shlex.quote(_BLANK_IF0_AWK), q, q),
        "mv %s.tmp %s" % (q, q),
    ]


def normpath(path):
    return os.path.normpath(path) if "/" in path else path


def set_value(argv, flag, value):
    """Sets the value after `flag` (as a separate argument) in place."""
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            argv[i + 1] = value


def quote_keeping_params(arg):
    """Shell-quotes arg but lets $1..$9 expand."""
    parts = re.split(r"(\$[1-9])", arg)
    return "".join(p if re.fullmatch(r"\$[1-9]", p) else (shlex.quote(p) if p else "") for p in parts) or "''"


def sed_replacement(text):
    return text.replace("\\", "\\\\").replace("&", "\\&").replace("|", "\\|").replace('"', '\\"').replace("$", "\\$")
