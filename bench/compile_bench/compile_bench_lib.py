"""Pure logic of bench/run: CPU accounting of a Bazel server, medians, paired ratios, tables.

Standard library only: bench/run runs it with the host's python3, the GPU
machine without Bazel, and the unit test under Bazel. Besides the logic, the
two reads every Bazel harness of bench/run makes (bazel_user_root,
process_cpu).
"""

import os
import statistics
import subprocess

from tools.nvcc_plan import stages


class StatError(ValueError):
    """/proc/<pid>/stat could not be read or parsed."""


def parse_proc_stat(text, ticks_per_s):
    """CPU seconds from the text of /proc/<pid>/stat.

    Returns (own, children): own = utime + stime of the process (all its
    threads), children = cutime + cstime, the CPU time of its children and
    their descendants that have exited and been waited for. For a Bazel
    server that is every local action: the sandbox or process-wrapper that
    Bazel starts for an action waits for the tool, and Bazel waits for it.
    """
    # The command name (field 2) is in parentheses and may hold spaces or ')'.
    end = text.rfind(")")
    if end < 0:
        raise StatError("not a /proc/<pid>/stat line: %r" % text[:80])
    fields = text[end + 2:].split()
    # fields[0] is field 3 (state); utime, stime, cutime, cstime are fields 14-17.
    try:
        utime, stime, cutime, cstime = (int(fields[i]) for i in range(11, 15))
    except (IndexError, ValueError):
        raise StatError("not a /proc/<pid>/stat line: %r" % text[:80])
    return (utime + stime) / ticks_per_s, (cutime + cstime) / ticks_per_s


def process_cpu(pid):
    """(own, children) CPU seconds of a running process, e.g. the Bazel server (parse_proc_stat)."""
    with open("/proc/%d/stat" % pid) as f:
        return parse_proc_stat(f.read(), os.sysconf("SC_CLK_TCK"))


def bazel_user_root(bazelw, repo):
    """The output user root of `bazelw` in `repo` (the parent of its output base).

    tools/bazelw mounts it at the same path in its root filesystem, so a
    harness's scratch output base and files under it have one path for Bazel
    in either of the wrapper's modes.
    """
    out_base = subprocess.run([bazelw, "info", "output_base"], cwd=repo, check=True, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.strip()
    return os.path.dirname(out_base)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values):
    """(min, max) of the values that are not None, or (None, None)."""
    values = [v for v in values if v is not None]
    return (min(values), max(values)) if values else (None, None)


def key_of(run):
    """What a run measures, without its repetition: (variant, scenario, archs, scope, file)."""
    return (run["variant"], run.get("scenario", "cold"), run["archs"], run.get("scope", "corpus"), run.get("file"))


def group(runs):
    """{key_of(run): [runs in repetition order]}."""
    out = {}
    for run in sorted(runs, key=lambda r: r["rep"]):
        out.setdefault(key_of(run), []).append(run)
    return out


def metric(run, name):
    """A number of a run: wall_s, cpu_s (all CPU), cpu_actions_s (CPU of the compilers only)."""
    if name == "cpu_actions_s" and "cpu_actions_s" not in run:
        return run.get("cpu_s")  # runs without Bazel: all CPU is the compilers'
    return run.get(name)


def paired_ratios(runs_a, runs_b, name):
    """Per-repetition ratios a/b of a metric (runs paired by their rep number)."""
    b_by_rep = {r["rep"]: r for r in runs_b}
    ratios = []
    for a in runs_a:
        b = b_by_rep.get(a["rep"])
        if b is None:
            continue
        va, vb = metric(a, name), metric(b, name)
        if va is not None and vb:
            ratios.append(va / vb)
    return ratios


def ratio_summary(runs_a, runs_b, name):
    """{'median': median of the paired ratios, 'min', 'max', 'n'} or None."""
    ratios = paired_ratios(runs_a, runs_b, name)
    if not ratios:
        return None
    lo, hi = spread(ratios)
    return {"median": median(ratios), "min": lo, "max": hi, "n": len(ratios)}


def fmt_s(value):
    return "–" if value is None else ("%.1f s" % value if value >= 10 else "%.2f s" % value)


def fmt_ratio(summary):
    """'1.23x (1.10–1.31)' from ratio_summary, '–' for None."""
    if not summary:
        return "–"
    if summary["n"] == 1:
        return "%.2fx" % summary["median"]
    return "%.2fx (%.2f–%.2f)" % (summary["median"], summary["min"], summary["max"])


def fmt_pct(value):
    return "–" if value is None else "%.1f %%" % (100 * value)


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def stage_totals(spawns):
    """{mnemonic: {'executed': n, 'hits': n, 'executed_s': seconds}} of the Cuda* spawns of an execution log."""
    out = {}
    for s in spawns:
        if not s.mnemonic.startswith("Cuda"):
            continue
        row = out.setdefault(s.mnemonic, {"executed": 0, "hits": 0, "executed_s": 0.0})
        if s.cache_hit:
            row["hits"] += 1
        else:
            row["executed"] += 1
            row["executed_s"] += s.wall_s
    for row in out.values():
        row["executed_s"] = round(row["executed_s"], 3)
    return out


def target_name(label):
    """'elementwise' from '@@rules_cuda_stages_bench~//:elementwise'."""
    return label.rsplit(":", 1)[-1] if label else ""


def compile_fraction(rows):
    """Fraction of CudaCicc + CudaPtxas time that came from the cache (rows of cache_report_lib.summarize)."""
    compilers = (stages.CICC.mnemonic, stages.PTXAS.mnemonic)
    saved = sum(r.saved_s for r in rows if r.stage in compilers)
    run = sum(r.executed_s for r in rows if r.stage in compilers)
    return saved / (saved + run) if saved + run else None
