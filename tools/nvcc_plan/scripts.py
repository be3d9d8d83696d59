"""Writing stage scripts: what every script of a compile or a device link shares.

A stage script is `/bin/sh` code holding one stage's whole command line (so
the action's key is that command plus its input files): a comment naming the
stage, the environment nvcc would give the tool, and the command, optionally
wrapped so that a failure the host compiler or C library is known to cause
ends with a hint.
"""

import os
import re
import shlex

from tools.nvcc_plan import dryrun


class PlanMismatch(dryrun.PlanError):
    """nvcc's plan does not have the stages the layout declares (or has stages these rules cannot run)."""


def fail(label, message):
    """Raises the PlanMismatch of `label`'s target (every planner error names the target this way)."""
    raise PlanMismatch("rules_cuda_stages: %s: %s" % (label, message))


def only(plan, kind, label, what):
    """The one command of `kind` in `plan`; fails naming `label` and `what` (e.g. "stage in nvcc's plan") otherwise."""
    found = plan.by_kind(kind)
    if len(found) != 1:
        fail(label, "expected one %s %s, found %d" % (kind, what, len(found)))
    return found[0]


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


def stage_script(label, what, mnemonic, arch, exports, argv, with_hints=False, post=()):
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
        for needle, hint in HINTS:
            lines.append(
                "if [ $rc -ne 0 ] && grep -q %s \"$err\"; then echo %s >&2; fi"
                % (shlex.quote(needle), shlex.quote("rules_cuda_stages: %s (%s): %s" % (label, mnemonic, hint)))
            )
        lines += ['rm -f "$err"', "exit $rc"]
    return "\n".join(lines) + "\n"


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
