"""Checks what `tools/demo` printed: nothing alarming, and a summary that names only stages that ran.

    tools/demo 2>&1 | tee demo.log; python3 tools/demo_check/demo_check.py demo.log

A healthy demo prints no line a reader takes for a failure (WARNING, ERROR,
Error, Exception, a Python traceback), and its summary's "device stages (...)"
names only stages that the developer's build has (its table, above it).
Exits 1 naming each problem; .ci/fresh_machine runs it on a fresh machine and a
warm one.
"""

import re
import sys

# What reads as a failure to someone watching the demo.
ALARMING = re.compile(r"\b(WARNING|ERROR|Error|Exception|FAILED|FATAL)\b|^Traceback \(most recent call last\)")

_DEV_TABLE = "== developer build"
_ROW = re.compile(r"^(Cuda[A-Za-z]+)\s+(\S+)\s+(\d+)\s")
_SUMMARY = re.compile(r"^device stages \(([^)]*)\), all examples")


def developer_stages(lines):
    """Mnemonics with at least one action in the developer build's table."""
    stages = set()
    inside = False
    for line in lines:
        if line.startswith(_DEV_TABLE):
            inside = True
            continue
        if inside and line.startswith("== "):
            break
        m = _ROW.match(line) if inside else None
        if m and int(m.group(3)) > 0:
            stages.add(m.group(1))
    return stages


def problems(text):
    """Every problem of a demo's output, one line each (empty: it is fine)."""
    lines = text.splitlines()
    out = ["alarming line %d: %s" % (i + 1, line) for i, line in enumerate(lines) if ALARMING.search(line)]
    summary = [m.group(1) for m in map(_SUMMARY.match, lines) if m]
    if not summary:
        out.append("no summary line ('device stages (...), all examples ...')")
        return out
    ran = developer_stages(lines)
    if not ran:
        out.append("no developer build table ('%s ...') with stages" % _DEV_TABLE)
    named = [s.strip() for s in summary[0].split(",") if s.strip()]
    for stage in named:
        if stage not in ran:
            out.append("the summary names %s, which the developer build did not run (its stages: %s)" % (stage, ", ".join(sorted(ran))))
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: demo_check.py DEMO_OUTPUT", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        found = problems(f.read())
    for p in found:
        print("demo_check: " + p)
    if not found:
        print("demo_check: the demo's output is clean (no alarming line; the summary names only stages that ran)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
