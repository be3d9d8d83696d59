"""Tables and plots of bench/run's results (results-<name>.json) and of nvcc_runs.py's (the GPU machine).

  python3 bench/compile_bench/report.py [--plots] [--gpu_results=F] --out=DIR --name=NAME RESULTS.json

Tables need only the standard library; --plots needs matplotlib.
"""

import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from bench.compile_bench import compile_bench_lib as lib  # noqa: E402
from tools.nvcc_plan import stages  # noqa: E402

NAMES = {
    "bazel_staged": "Bazel, staged",
    "bazel_unstaged": "Bazel, staged=false (nvcc per file)",
    "nvcc": "nvcc per file",
    "nvcc_t0": "nvcc -t 0 per file",
    "runner": "staged runner (nvcc_plan --run)",
}
STAGES = stages.pipeline_mnemonics()


def load(path):
    with open(path) as f:
        return json.load(f)


def _cold(groups, variant, archs):
    return groups.get((variant, "cold", archs, "corpus", None), [])


def _median_of(runs, name):
    return lib.median([lib.metric(r, name) for r in runs])


def _spread_text(runs, name):
    values = [lib.metric(r, name) for r in runs]
    lo, hi = lib.spread(values)
    if lo is None:
        return "–"
    med = lib.median(values)
    return lib.fmt_s(med) if len(values) == 1 else "%s (%s–%s)" % (lib.fmt_s(med), lib.fmt_s(lo).replace(" s", ""),
                                                                  lib.fmt_s(hi))


def cold_table(groups, archs, variants):
    staged = _cold(groups, "bazel_staged", archs)
    rows = []
    for v in variants:
        runs = _cold(groups, v, archs)
        if not runs:
            continue
        server = [r.get("cpu_server_s") for r in runs]
        rows.append([
            NAMES.get(v, v), len(runs), _spread_text(runs, "wall_s"), _spread_text(runs, "cpu_actions_s"),
            lib.fmt_s(lib.median(server)) if any(s is not None for s in server) else "–",
            lib.fmt_ratio(lib.ratio_summary(staged, runs, "wall_s")),
            lib.fmt_ratio(lib.ratio_summary(staged, runs, "cpu_actions_s")),
        ])
    return lib.markdown_table(
        ["build", "runs", "wall: median (min–max)", "CPU of the compilers", "CPU of the Bazel server",
         "staged ÷ this, wall", "staged ÷ this, CPU"], rows)


def _reuse(runs, group, key="device_fraction"):
    return lib.median([r.get("reuse", {}).get(group, {}).get(key) for r in runs])


def targets_table(groups, archs, dev_archs):
    staged = _cold(groups, "bazel_staged", archs)
    t0 = _cold(groups, "nvcc_t0", archs)
    unstaged = _cold(groups, "bazel_unstaged", archs)
    nvcc = _cold(groups, "nvcc", archs)
    dev = groups.get(("bazel_staged", "ci_dev", dev_archs, "corpus", None), [])
    edit = groups.get(("bazel_staged", "edit", archs, "corpus", None), [])
    rows = []

    wall = lib.ratio_summary(staged, t0, "wall_s")
    rows.append(["cold %d-arch wall ≤ nvcc -t 0's" % _n_archs(archs), "staged ÷ nvcc -t 0 wall ≤ 1.00x",
                 lib.fmt_ratio(wall), _verdict(wall and wall["median"] <= 1.0)])
    cpu = lib.ratio_summary(staged, unstaged, "cpu_actions_s")
    rows.append(["staging CPU overhead ≤ 10 %", "staged ÷ staged=false, CPU of the compilers ≤ 1.10x",
                 lib.fmt_ratio(cpu), _verdict(cpu and cpu["median"] <= 1.10)])
    cpu_nvcc = lib.ratio_summary(staged, nvcc, "cpu_actions_s")
    rows.append(["staging CPU overhead ≤ 10 %", "staged ÷ plain nvcc per file, CPU ≤ 1.10x", lib.fmt_ratio(cpu_nvcc),
                 _verdict(cpu_nvcc and cpu_nvcc["median"] <= 1.10)])
    cpu_all = lib.ratio_summary(staged, unstaged, "cpu_s")
    rows.append(["staging CPU overhead ≤ 10 %", "staged ÷ staged=false, CPU including the Bazel server's own", lib.fmt_ratio(cpu_all),
                 _verdict(cpu_all and cpu_all["median"] <= 1.10)])
    for group, label in (("all", "all code (CCCL included)"), ("plain", "plain kernels"), ("cccl", "CCCL code")):
        frac = _reuse(dev, group)
        rows.append(["CI → developer: ≥ 95 % of device-stage time from cache", "%s, default configuration" % label,
                     lib.fmt_pct(frac), _verdict(None if frac is None else frac >= 0.95)])
    cold1 = _cold(groups, "bazel_staged", dev_archs)
    speed = lib.ratio_summary(cold1, dev, "wall_s")
    rows.append(["CI → developer: ≥ 2.5x faster than a cold build", "cold %s ÷ %s after CI's build, wall" % (dev_archs, dev_archs),
                 lib.fmt_ratio(speed), _verdict(speed and speed["median"] >= 2.5)])
    rerun = [r.get("reuse", {}).get(stages.PTXAS.mnemonic, {}) for r in edit]
    if rerun:
        worst = max(r.get("rerun", 0) for r in rerun)
        total = max(r.get("actions", 0) for r in rerun)
        rows.append(["host-only edit: every ptxas a hit", "CudaPtxas re-run after editing every .cu",
                     "%d of %d (worst of %d runs)" % (worst, total, len(rerun)), _verdict(worst == 0)])
    # Each target named once.
    seen = set()
    for row in rows:
        if row[0] in seen:
            row[0] = ""
        elif row[0]:
            seen.add(row[0])
    return lib.markdown_table(["target", "measured as", "median (min–max)", ""], rows)


def _n_archs(archs):
    """Archs of an arch list counted as gencode entries (sm_90,compute_90 is one)."""
    return len({a.split("_", 1)[1] for a in archs.split(",")})


def _verdict(ok):
    """met / not met; None (a measurement the run did not make, e.g. --blocks left it out): not measured."""
    if ok is None:
        return "not measured"
    return "met" if ok else "**not met**"


def ci_dev_table(groups, archs, dev_archs):
    cold1 = _cold(groups, "bazel_staged", dev_archs)
    rows = [["cold %s build (staged)" % dev_archs, _spread_text(cold1, "wall_s"), _spread_text(cold1, "cpu_s"), "–",
             "–", "–", "–"]]
    runs = groups.get(("bazel_staged", "ci_dev", dev_archs, "corpus", None), [])
    if runs:
        rows.append(["%s build after CI's build" % dev_archs, _spread_text(runs, "wall_s"), _spread_text(runs, "cpu_s"),
                     lib.fmt_ratio(lib.ratio_summary(cold1, runs, "wall_s")), lib.fmt_pct(_reuse(runs, "all")),
                     lib.fmt_pct(_reuse(runs, "plain")), lib.fmt_pct(_reuse(runs, "non_cccl")), lib.fmt_pct(_reuse(runs, "cccl"))])
    return lib.markdown_table(["build", "wall", "CPU (all)", "cold ÷ this, wall", "device-stage time from cache: all",
                               "plain kernels", "all without CCCL", "CCCL"], rows)


def pin_cost_table(groups, archs, dev_archs):
    pinned = groups.get(("bazel_staged", "cold_cccl_pinned", dev_archs, "corpus", None), [])
    own = groups.get(("bazel_staged", "cold_cccl_own", dev_archs, "corpus", None), [])
    if not pinned or not own:
        return "(not measured)"

    def device_s(run):
        return sum(v["executed_s"] for m, v in run.get("stages", {}).items()
                   if m in stages.device_mnemonics(stages.COMPILE_STAGES))

    for r in pinned + own:
        r["device_s"] = round(device_s(r), 3)
    rows = []
    for runs, name in ((pinned, "the shipped set's list (%s)" % archs), (own, "%s's own list" % dev_archs)):
        rows.append([name, len(runs), _spread_text(runs, "wall_s"), _spread_text(runs, "cpu_actions_s"),
                     _spread_text(runs, "device_s")])
    rows.append(["pinned ÷ own", "", lib.fmt_ratio(lib.ratio_summary(pinned, own, "wall_s")),
                 lib.fmt_ratio(lib.ratio_summary(pinned, own, "cpu_actions_s")),
                 lib.fmt_ratio(lib.ratio_summary(pinned, own, "device_s"))])
    return lib.markdown_table(["cold %s build of the CCCL files, __CUDA_ARCH_LIST__ =" % dev_archs, "runs", "wall",
                               "CPU of the compilers", "device stages (preprocess, cicc, ptxas), action time"], rows)


def edit_table(groups, archs):
    rows = []
    staged = groups.get(("bazel_staged", "edit", archs, "corpus", None), [])
    unstaged = groups.get(("bazel_unstaged", "edit", archs, "corpus", None), [])
    for runs, name in ((staged, "staged"), (unstaged, "staged=false")):
        if not runs:
            continue
        reuse = runs[-1].get("reuse", {})
        rerun = ", ".join("%s %d/%d" % (m, v["rerun"], v["actions"]) for m, v in
                          sorted(reuse.items(), key=lambda kv: STAGES.index(kv[0]) if kv[0] in STAGES else 99))
        rows.append([name, _spread_text(runs, "wall_s"), _spread_text(runs, "cpu_actions_s"),
                     lib.fmt_ratio(lib.ratio_summary(staged, runs, "wall_s")), rerun])
    return lib.markdown_table(["incremental build after the edit", "wall", "CPU of the compilers",
                               "staged ÷ this, wall", "actions re-run / actions of the cold build (last run)"], rows)


def log_cost_table(groups, archs):
    with_log = _cold(groups, "bazel_staged", archs)
    without = groups.get(("bazel_staged", "cold_nolog", archs, "corpus", None), [])
    if not without:
        return "(not measured)"
    rows = []
    for runs, name in ((with_log, "with --execution_log_json_file (all other Bazel builds)"), (without, "without")):
        rows.append([name, _spread_text(runs, "wall_s"), _spread_text(runs, "cpu_actions_s"),
                     _spread_text(runs, "cpu_server_s")])
    rows.append(["with ÷ without", lib.fmt_ratio(lib.ratio_summary(with_log, without, "wall_s")),
                 lib.fmt_ratio(lib.ratio_summary(with_log, without, "cpu_actions_s")),
                 lib.fmt_ratio(lib.ratio_summary(with_log, without, "cpu_server_s"))])
    return lib.markdown_table(["staged cold build", "wall", "CPU of the compilers", "CPU of the Bazel server"], rows)


def settings_table(groups, archs):
    """Cold staged builds with a setting (split4, gcc10: scenario cold_<setting>) beside cold_nolog, paired by repetition."""
    without = groups.get(("bazel_staged", "cold_nolog", archs, "corpus", None), [])
    settings = sorted({k[1] for k in groups if k[0] == "bazel_staged" and k[2] == archs and k[1].startswith("cold_")
                       and k[1] not in ("cold", "cold_nolog") and k[3] == "corpus" and k[4] is None})
    if not without or not settings:
        return "(not measured)"
    rows = [["none (the machine's compiler, no split)", _spread_text(without, "wall_s"), _spread_text(without, "cpu_actions_s"), "1.00x", "1.00x"]]
    for scenario in settings:
        runs = groups[("bazel_staged", scenario, archs, "corpus", None)]
        rows.append([scenario[len("cold_"):], _spread_text(runs, "wall_s"), _spread_text(runs, "cpu_actions_s"),
                     lib.fmt_ratio(lib.ratio_summary(runs, without, "wall_s")),
                     lib.fmt_ratio(lib.ratio_summary(runs, without, "cpu_actions_s"))])
    return lib.markdown_table(["setting (staged cold build, no execution log)", "wall", "CPU of the compilers",
                               "÷ none, wall", "÷ none, CPU"], rows)


def stage_table(groups, archs):
    runs = _cold(groups, "bazel_staged", archs)
    if not runs:
        return ""
    totals = {}
    for r in runs:
        for m, v in r.get("stages", {}).items():
            totals.setdefault(m, []).append((v["executed_s"], v["executed"]))
    all_s = sum(lib.median([t for t, _ in v]) for v in totals.values())
    rows = []
    for m in sorted(totals, key=lambda m: STAGES.index(m) if m in STAGES else 99):
        s = lib.median([t for t, _ in totals[m]])
        rows.append([m, totals[m][0][1], lib.fmt_s(s), "%.1f %%" % (100 * s / all_s if all_s else 0)])
    rows.append(["all", sum(v[0][1] for v in totals.values()), lib.fmt_s(all_s), "100 %"])
    return lib.markdown_table(["stage", "actions", "action time (median over runs)", "share"], rows)


def tables(path, archs, dev_archs):
    doc = load(path)
    groups = lib.group(doc["runs"])
    m = doc.get("machine", {})
    variants = ["bazel_staged", "bazel_unstaged", "nvcc", "nvcc_t0", "runner"]
    out = [
        "<!-- Generated by bench/run from %s. -->" % os.path.basename(path),
        "",
        "Machine: %s cores (%s), Bazel --jobs=%s, %s. Started %s (`uptime`: %s); finished %s (`uptime`: %s)." % (
            m.get("cores"), m.get("cpu_model"), m.get("jobs"), m.get("bazel"), m.get("started"), m.get("uptime"),
            m.get("finished"), m.get("uptime_end")),
        "",
        "### Targets",
        "",
        targets_table(groups, archs, dev_archs),
        "",
        "### Cold builds, %s" % archs,
        "",
        cold_table(groups, archs, variants),
        "",
        "### Cold builds, %s" % dev_archs,
        "",
        cold_table(groups, dev_archs, variants),
        "",
        "### CI → developer: CI builds %s, then a developer builds %s against its cache" % (archs, dev_archs),
        "",
        ci_dev_table(groups, archs, dev_archs),
        "",
        "### What pinning __CUDA_ARCH_LIST__ costs: cold %s builds of the CCCL files" % dev_archs,
        "",
        pin_cost_table(groups, archs, dev_archs),
        "",
        "### Host-only edit of every .cu (%s), built incrementally" % archs,
        "",
        edit_table(groups, archs),
        "",
        "### What the execution log costs (staged, cold, %s)" % archs,
        "",
        log_cost_table(groups, archs),
        "",
        "### Settings: split compilation, the hermetic host toolchain (staged, cold, %s)" % archs,
        "",
        settings_table(groups, archs),
        "",
        "### Where the staged cold build's time goes (%s; action wall time, single-threaded tools)" % archs,
        "",
        stage_table(groups, archs),
        "",
    ]
    return "\n".join(out)


# --- the GPU machine (nvcc_runs.py results) ----------------------------------


def gpu_tables(path):
    doc = load(path)
    groups = lib.group(doc["runs"])
    t = doc.get("tools", {})
    out = ["<!-- Generated by bench/compile_bench/report.py from %s. -->" % os.path.basename(path), "",
           "Machine: %s cores (%s), %s, host compiler %s." % (t.get("cores"), t.get("cpu_model"), t.get("nvcc"),
                                                             t.get("host_compiler")), ""]
    archs_seen = sorted({k[2] for k in groups}, key=lambda a: -a.count(","))
    variants = [v for v in ("nvcc", "nvcc_t0", "runner") if any(k[0] == v for k in groups)]
    for archs in archs_seen:
        base = groups.get(("nvcc_t0", "cold", archs, "corpus", None), [])
        rows = []
        for v in variants:
            runs = groups.get((v, "cold", archs, "corpus", None), [])
            if runs:
                rows.append([NAMES[v], len(runs), _spread_text(runs, "wall_s"), _spread_text(runs, "cpu_s"),
                             lib.fmt_ratio(lib.ratio_summary(runs, base, "wall_s")),
                             lib.fmt_ratio(lib.ratio_summary(runs, base, "cpu_s"))])
        if rows:
            out += ["### The whole corpus, %s, %s files at a time" % (archs, doc.get("jobs")), "",
                    lib.markdown_table(["build", "runs", "wall", "CPU", "this ÷ nvcc -t 0, wall",
                                        "this ÷ nvcc -t 0, CPU"], rows), ""]
            out += _per_file_in_corpus(groups, archs, variants)
        files = sorted({k[4] for k in groups if k[2] == archs and k[3] == "file"},
                       key=lambda f: list(doc["runs"][0]["files"]).index(f) if doc["runs"] and f in doc["runs"][0]["files"] else 0)
        if files:
            header = ["file"] + ["%s wall" % NAMES[v].split(" (")[0] for v in variants]
            has_cp = "runner" in variants
            if has_cp:
                header.append("runner's critical path")
            if "runner" in variants and "nvcc_t0" in variants:
                header.append("runner ÷ nvcc -t 0, wall")
            rows = []
            for f in files:
                row = [f]
                for v in variants:
                    row.append(_spread_text(groups.get((v, "cold", archs, "file", f), []), "wall_s"))
                if has_cp:
                    runner = groups.get(("runner", "cold", archs, "file", f), [])
                    cps = [r["files"][f].get("critical_path_s") for r in runner]
                    row.append(lib.fmt_s(lib.median(cps)))
                if "runner" in variants and "nvcc_t0" in variants:
                    row.append(lib.fmt_ratio(lib.ratio_summary(groups.get(("runner", "cold", archs, "file", f), []),
                                                               groups.get(("nvcc_t0", "cold", archs, "file", f), []),
                                                               "wall_s")))
                rows.append(row)
            out += ["### One file at a time, alone on the machine, %s" % archs, "", lib.markdown_table(header, rows), ""]
    stopped = doc.get("stopped")
    if stopped:
        out += ["Stopped early (device-time budget): " + "; ".join(stopped if isinstance(stopped, list) else [stopped]), ""]
    return "\n".join(out)


def _per_file_in_corpus(groups, archs, variants):
    """Per-file times inside the whole-corpus runs (each file started at once, files <= cores)."""
    runs = {v: groups.get((v, "cold", archs, "corpus", None), []) for v in variants}
    if not runs.get("nvcc") and not runs.get("runner"):
        return []
    files = list(next(r for rs in runs.values() for r in rs)["files"])
    header = ["file"] + ["%s wall" % NAMES[v].split(" (")[0] for v in variants if runs[v]]
    if runs.get("runner"):
        header += ["runner's critical path", "runner CPU ÷ nvcc CPU"]
    rows = []
    for f in files:
        row = [f]
        for v in variants:
            if runs[v]:
                row.append(lib.fmt_s(lib.median([r["files"][f]["wall_s"] for r in runs[v]])))
        if runs.get("runner"):
            row.append(lib.fmt_s(lib.median([r["files"][f].get("critical_path_s") for r in runs["runner"]])))
            cpu_runner = lib.median([r["files"][f]["cpu_s"] for r in runs["runner"]])
            cpu_nvcc = lib.median([r["files"][f]["cpu_s"] for r in runs.get("nvcc", [])])
            row.append("%.2fx" % (cpu_runner / cpu_nvcc) if cpu_runner and cpu_nvcc else "–")
        rows.append(row)
    return ["Per file inside those runs (medians; every file starts at once, so -t 0 and the runner "
            "share the cores with the other files' threads):", "", lib.markdown_table(header, rows), ""]


# --- plots -----------------------------------------------------------------------


def _bars(ax, labels, runs_per_label, name, color):
    import numpy as np

    meds = [lib.median([lib.metric(r, name) for r in runs]) or 0 for runs in runs_per_label]
    lo = [m - (lib.spread([lib.metric(r, name) for r in runs])[0] or m) for m, runs in zip(meds, runs_per_label)]
    hi = [(lib.spread([lib.metric(r, name) for r in runs])[1] or m) - m for m, runs in zip(meds, runs_per_label)]
    return meds, np.array([lo, hi])


def plot_cold(doc, archs_list, out_png, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    groups = lib.group(doc["runs"])
    fig, axes = plt.subplots(1, len(archs_list), figsize=(6 * len(archs_list), 4.2), squeeze=False)
    for ax, archs in zip(axes[0], archs_list):
        variants = [v for v in ("bazel_staged", "bazel_unstaged", "nvcc", "nvcc_t0", "runner")
                    if groups.get((v, "cold", archs, "corpus", None))]
        runs = [groups[(v, "cold", archs, "corpus", None)] for v in variants]
        x = np.arange(len(variants))
        for i, (name, label, color) in enumerate((("wall_s", "wall", "#4c72b0"),
                                                   ("cpu_actions_s", "CPU of the compilers", "#dd8452"))):
            meds, err = _bars(ax, variants, runs, name, color)
            ax.bar(x + (i - 0.5) * 0.38, meds, 0.38, yerr=err, capsize=3, label=label, color=color)
        server = [lib.median([r.get("cpu_server_s") for r in rs]) for rs in runs]
        if any(s is not None for s in server):
            ax.bar(x + 0.5 * 0.38, [s or 0 for s in server], 0.38,
                   bottom=[lib.median([lib.metric(r, "cpu_actions_s") for r in rs]) or 0 for rs in runs],
                   color="#c44e52", label="CPU of the Bazel server")
        ax.set_xticks(x)
        ax.set_xticklabels([NAMES[v].replace(" (", "\n(").replace(", ", ",\n") for v in variants], fontsize=7)
        ax.set_ylabel("seconds (median; bars: min–max)")
        ax.set_title("%s, cold, %s" % (title, archs), fontsize=9)
        ax.margins(y=0.12)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def plot_stages(doc, archs, out_png, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = lib.group(doc["runs"]).get(("bazel_staged", "cold", archs, "corpus", None), [])
    if not runs:
        return
    files = list(runs[0].get("per_file", {}))
    files.sort(key=lambda f: -sum(runs[0]["per_file"][f].values()))
    stages = [s for s in STAGES if any(s in r.get("per_file", {}).get(f, {}) for r in runs for f in files)]
    fig, ax = plt.subplots(figsize=(9, 4.8))
    left = [0.0] * len(files)
    cmap = plt.get_cmap("tab10")
    for i, s in enumerate(stages):
        vals = [lib.median([r["per_file"].get(f, {}).get(s, 0.0) for r in runs]) for f in files]
        ax.barh(files, vals, left=left, label=s, color=cmap(i))
        left = [a + b for a, b in zip(left, vals)]
    ax.invert_yaxis()
    ax.set_xlabel("action time, seconds (median of %d cold builds)" % len(runs))
    ax.set_title("%s: staged cold build, %s, time per stage and file" % (title, archs), fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def plot_scenarios(doc, archs, dev_archs, out_png, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = lib.group(doc["runs"])
    bars = [
        ("cold %s, staged" % dev_archs, groups.get(("bazel_staged", "cold", dev_archs, "corpus", None), [])),
        ("cold %s, staged=false" % dev_archs, groups.get(("bazel_unstaged", "cold", dev_archs, "corpus", None), [])),
        ("%s after CI" % dev_archs, groups.get(("bazel_staged", "ci_dev", dev_archs, "corpus", None), [])),
        ("host-only edit\n(%d archs), staged" % _n_archs(archs), groups.get(("bazel_staged", "edit", archs, "corpus", None), [])),
        ("host-only edit\n(%d archs), staged=false" % _n_archs(archs), groups.get(("bazel_unstaged", "edit", archs, "corpus", None), [])),
    ]
    bars = [(label, runs) for label, runs in bars if runs]
    fig, ax = plt.subplots(figsize=(9, 4))
    meds, err = _bars(ax, None, [r for _, r in bars], "wall_s", None)
    ax.bar(range(len(bars)), meds, yerr=err, capsize=3,
           color=["#4c72b0", "#8172b3", "#55a868", "#55a868", "#dd8452", "#c44e52"][:len(bars)])
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([label for label, _ in bars], fontsize=7)
    ax.set_ylabel("wall, seconds (median; bars: min–max)")
    ax.set_title("%s: developer builds (CI built %s)" % (title, archs), fontsize=9)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def plot_gpu_files(doc, archs, out_png, title):
    """Per-file wall inside the whole-corpus runs, and the runner's critical path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    groups = lib.group(doc["runs"])
    variants = [v for v in ("nvcc", "nvcc_t0", "runner") if groups.get((v, "cold", archs, "corpus", None))]
    if not variants:
        return
    runs = {v: groups[(v, "cold", archs, "corpus", None)] for v in variants}
    files = list(runs[variants[0]][0]["files"])
    files.sort(key=lambda f: -lib.median([r["files"][f]["wall_s"] for r in runs[variants[0]]]))
    bars = [(NAMES[v] + ", wall", [lib.median([r["files"][f]["wall_s"] for r in runs[v]]) for f in files])
            for v in variants]
    if "runner" in runs:
        bars.append(("runner's critical path", [lib.median([r["files"][f].get("critical_path_s") for r in runs["runner"]]) or 0
                                                for f in files]))
    width = 0.8 / len(bars)
    fig, ax = plt.subplots(figsize=(11, 4.5))
    x = np.arange(len(files))
    colors = ["#8172b3", "#4c72b0", "#dd8452", "#999999"]
    for i, (label, vals) in enumerate(bars):
        ax.bar(x + i * width, vals, width, label=label, color=colors[i % len(colors)])
    ax.set_xticks(x + width * (len(bars) - 1) / 2)
    ax.set_xticklabels(files, rotation=30, fontsize=8)
    ax.set_ylabel("seconds (median)")
    ax.set_title("%s: per file inside the whole-corpus runs, %s (all files start at once)" % (title, archs), fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("--out", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--archs", default="sm_75,sm_80,sm_86,sm_90,compute_90")
    p.add_argument("--dev_archs", default="sm_90")
    p.add_argument("--plots", action="store_true")
    p.add_argument("--gpu_results", default="")
    p.add_argument("--gpu_name", default="gpu16")
    opts = p.parse_args()
    doc = load(opts.results)
    if opts.gpu_results:
        text = gpu_tables(opts.gpu_results)
        with open(os.path.join(opts.out, "tables-%s.md" % opts.gpu_name), "w") as f:
            f.write(text)
        print(text)
    if not opts.plots:
        print(tables(opts.results, opts.archs, opts.dev_archs))
        return
    title = "%s cores" % doc.get("machine", {}).get("cores", "?")
    plot_cold(doc, [opts.archs, opts.dev_archs], os.path.join(opts.out, "cold-%s.png" % opts.name), title)
    plot_stages(doc, opts.archs, os.path.join(opts.out, "stages-%s.png" % opts.name), title)
    plot_scenarios(doc, opts.archs, opts.dev_archs, os.path.join(opts.out, "scenarios-%s.png" % opts.name), title)
    if opts.gpu_results:
        gpu = load(opts.gpu_results)
        archs = sorted({r["archs"] for r in gpu["runs"]}, key=lambda a: -a.count(","))
        gtitle = "%s cores (GPU machine)" % gpu.get("tools", {}).get("cores", "?")
        plot_cold(gpu, archs, os.path.join(opts.out, "cold-%s.png" % opts.gpu_name), gtitle)
        for a in archs:
            plot_gpu_files(gpu, a, os.path.join(opts.out, "files-%s-%darch.png" % (opts.gpu_name, _n_archs(a))), gtitle)


if __name__ == "__main__":
    main()
