"""What a stage's command reads of the inputs its action declares: strace's record, matched to the declared files.

stage_reads.py re-runs one action per stage x arch from Bazel's execution log
in the execution root under `strace -f`; this module parses strace's lines
and compares the files the command opened with the files the action declared.
"""

import collections
import dataclasses
import os
import re

# pid? syscall(args) = result: the calls that read a file or run one.
_CALL = re.compile(r'^(?:\[pid\s+\d+\]\s+|\d+\s+)?(open|openat|execve)\((.*)\)\s+=\s+(-?\d+)')
_PATH = re.compile(r'"((?:[^"\\]|\\.)*)"')


def opened_paths(trace_lines):
    """The paths that open/openat opened or execve ran successfully, in order, each once."""
    seen = collections.OrderedDict()
    for line in trace_lines:
        m = _CALL.match(line.strip())
        if not m or int(m.group(3)) < 0:
            continue
        call, args = m.group(1), m.group(2)
        paths = _PATH.findall(args)
        if not paths:
            continue
        if call == "openat" and "O_DIRECTORY" in args:
            continue  # a directory listed, not a file read
        if call in ("open", "openat") and re.search(r"O_(WRONLY|RDWR|CREAT)", args):
            continue  # an output or a temporary file
        seen.setdefault(paths[0].encode().decode("unicode_escape"), None)
    return list(seen)


@dataclasses.dataclass
class Reads:
    declared: int  # declared input files
    declared_bytes: int
    read: int  # of them, opened or run by the command
    read_bytes: int
    undeclared: list  # files under the execution root the command opened that the action did not declare
    read_roots: collections.Counter  # input root -> files read


def compare(declared, sizes, opened, execroot, root_of, outputs=()):
    """Matches the opened paths (absolute, or relative to execroot) to the declared ones (execroot-relative).

    A declared input is read when the command opened it by its path under the
    execution root or by the file it resolves to (a compiler may canonicalise
    an include path); the stage scripts name the toolkit's binaries under
    /proc/self/cwd, the execution root. `root_of` names where an input comes
    from. The action's own outputs, and Python's bytecode caches (an
    interpreter's, not an input), are not undeclared reads.
    """
    execroot = os.path.abspath(execroot)
    by_real = {}
    for path in declared:
        by_real.setdefault(os.path.realpath(os.path.join(execroot, path)), path)
    declared_set = set(declared)
    read = set()
    undeclared = []
    skip = set(outputs)
    for path in opened:
        if path.startswith("/proc/self/cwd/"):
            path = path[len("/proc/self/cwd/"):]
        absolute = os.path.normpath(os.path.join(execroot, path))
        relative = os.path.relpath(absolute, execroot) if absolute.startswith(execroot + os.sep) else None
        if relative in declared_set:
            read.add(relative)
            continue
        real = os.path.realpath(absolute)
        if real in by_real:
            read.add(by_real[real])
        elif relative is not None and relative not in skip and "/__pycache__/" not in relative and os.path.isfile(absolute):
            undeclared.append(relative)
    return Reads(
        declared=len(declared),
        declared_bytes=sum(sizes.get(p, 0) for p in declared),
        read=len(read),
        read_bytes=sum(sizes.get(p, 0) for p in read),
        undeclared=sorted(undeclared),
        read_roots=collections.Counter(root_of(p) for p in read),
    )
