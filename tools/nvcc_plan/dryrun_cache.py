"""nvcc's dry run in a CudaPlan worker: asked once per set of flags for a compile.

Every `nvcc --dryrun` of CudaPlan goes through DryrunCache.plan, a compile's
and a device link's; only a compile's plan is kept and copied.

Every source of a build with the same flags gets the same plan from
`nvcc --dryrun`, except for the names derived from the source and the
object: the source path itself (also as fatbinary's --ident=), its real path (nvcc
resolves symlinks for cudafe++'s and cicc's --orig_src_path_name), the
object path, and the
temporary files nvcc names `tmpxft_<pid>_<n>-<k>_<stem>.<suffix>`. A dryrun
costs ~9 ms (nvcc also runs the host compiler on a probe) and its parse ~4 ms,
most of a CudaPlan request; so a persistent worker keeps the parsed plan of
each set of flags and gives the next source of that set a copy with those
names replaced (docs/internals.md, "What each action reads, and CudaPlan as a persistent worker").

The key is everything the plan can depend on but those names: nvcc's path,
the working directory, every argument but the values of -c and -o (their
extensions kept: they choose the language and the output kind), PATH, and
the identity (device, inode, size, mtime) of nvcc, its nvcc.profile and the
-ccbin host compiler, so a toolkit or compiler replaced in place is asked
again. A copy whose names cannot all be replaced is not used: the source
gets its own dryrun. //tools/nvcc_plan:cuda_plan_test checks that a copy
writes the same scripts as a fresh plan of the same source.

A device link (`nvcc -dlink`, no -c) is asked every time: nvcc names its
temporary files after the link's output, which is one per target, so a copy
would rarely be reused (a build has a few device links, against hundreds of
sources).
"""

import collections
import os
import re
import shutil

from tools.nvcc_plan import dryrun

# Plans kept per worker (each is a few KB); the oldest is dropped first.
MAX_PLANS = 256

_TEMP_PREFIX = r"(tmpxft_[0-9a-f]+_[0-9a-f]+-[0-9]+_)"


def _ext(path):
    base = os.path.basename(path)
    return base.rpartition(".")[2] if "." in base else ""


def _only_value(args, flag):
    """(index of the value, value) of the one `flag VALUE` in args, or None if not exactly one."""
    found = [i + 1 for i, a in enumerate(args[:-1]) if a == flag]
    if len(found) != 1 or any(a.startswith(flag + "=") for a in args):
        return None
    return found[0], args[found[0]]


def _identity(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _host_compiler(args):
    ccbin = _only_value(args, "-ccbin") or _only_value(args, "--compiler-bindir")
    if ccbin is None:
        return shutil.which("gcc") or ""
    path = ccbin[1]
    if os.path.isdir(path):
        path = os.path.join(path, "gcc")
    return path if "/" in path else (shutil.which(path) or path)


class _Names:
    """The names of one source's plan that depend on the source and the object."""

    def __init__(self, src, obj, cwd):
        self.src = src
        self.obj = obj
        if src.startswith("/proc/self/cwd/"):  # nvcc's own working directory: cwd
            src = os.path.join(cwd, src[len("/proc/self/cwd/") :])
        self.real = os.path.realpath(os.path.join(cwd, src))
        self.stem = dryrun.source_stem(src)

    def temp_pattern(self):
        return re.compile(_TEMP_PREFIX + re.escape(self.stem) + r"(?=\.)")


class DryrunCache:
    def __init__(self, max_plans=MAX_PLANS, run=dryrun.run_dryrun):
        self._plans = collections.OrderedDict()
        self._max = max_plans
        self._run = run
        self.dryruns = 0  # nvcc runs so far (for tests and logs)

    def _fresh(self, nvcc, nvcc_args, cwd):
        self.dryruns += 1
        return dryrun.plan_from_text(self._run(nvcc, nvcc_args, cwd=cwd))

    def _key(self, nvcc, nvcc_args, cwd, src_at, obj_at):
        args = list(nvcc_args)
        args[src_at] = "<source>." + _ext(args[src_at])
        args[obj_at] = "<object>." + _ext(args[obj_at])
        nvcc_real = os.path.join(cwd, nvcc)  # nvcc itself when absolute
        identities = tuple(
            _identity(p) for p in (nvcc_real, os.path.join(os.path.dirname(nvcc_real), "nvcc.profile"), _host_compiler(args))
        )
        if None in identities:
            return None
        return (nvcc, os.path.realpath(cwd), tuple(args), os.environ.get("PATH", ""), identities)

    def plan(self, nvcc, nvcc_args, cwd=None):
        """nvcc's plan (dryrun.Plan) for these arguments: a compile's from the cache when its flags were planned before."""
        src = _only_value(nvcc_args, "-c")
        obj = _only_value(nvcc_args, "-o")
        here = cwd or os.getcwd()
        key = self._key(nvcc, nvcc_args, here, src[0], obj[0]) if src and obj else None
        if key is None:
            return self._fresh(nvcc, nvcc_args, cwd)
        names = _Names(src[1], obj[1], here)
        cached = self._plans.get(key)
        if cached is not None:
            self._plans.move_to_end(key)
            copy = _renamed(cached[0], cached[1], names)
            if copy is not None:
                return copy
        plan = self._fresh(nvcc, nvcc_args, cwd)
        self._plans[key] = (plan, names)
        self._plans.move_to_end(key)
        while len(self._plans) > self._max:
            self._plans.popitem(last=False)
        return _renamed(plan, names, names)  # a copy: the caller may change it


def _renamed(plan, old, new):
    """A copy of `plan` (made for the source `old`) for the source `new`, or None if a name is left over."""
    exact = {old.src: new.src, old.obj: new.obj, old.real: new.real}
    temp = old.temp_pattern()
    replacement = lambda m: m.group(1) + new.stem  # noqa: E731
    if old.stem == new.stem:
        replacement = None

    def rename(value):
        if value in exact:
            return exact[value]
        flag, eq, rest = value.partition("=")
        if eq and rest in exact:  # --ident=<source> (fatbinary's, with -lineinfo)
            return flag + eq + exact[rest]
        return temp.sub(replacement, value) if replacement else value

    commands = []
    for s in plan.commands:
        commands.append(
            dryrun.Command(
                index=s.index,
                step=s.step,
                argv=[rename(a) for a in s.argv],
                arch=s.arch,
                virtual_arch=s.virtual_arch,
                inputs=[rename(a) for a in s.inputs],
                outputs=[rename(a) for a in s.outputs],
            )
        )
    copy = dryrun.Plan(env=list(plan.env), commands=commands)
    if old.src != new.src or old.obj != new.obj:
        # Every name of the old source must be gone: a path of it embedded in
        # some other argument would mean a plan this copy cannot reproduce.
        new_names = set(exact.values())
        left = [name for name in exact if name not in new_names]
        for s in copy.commands:
            for a in s.argv:
                value = a.partition("=")[2] if a.startswith("-") else a
                if a in new_names or value in new_names:
                    continue
                if any(name in a for name in left) or (old.stem != new.stem and temp.search(a)):
                    return None
    return copy
