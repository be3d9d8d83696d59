"""Plots of the scaling benchmark's results (bench/run scaling); needs matplotlib.

  python3 bench/compile_bench/scaling_plots.py RESULTS.json --out=DIR --name=NAME [--archs=...] [--dev_archs=...]

Writes DIR/scaling-NAME.png (cost per source, analysis and heap, null build,
against the number of sources) and, when the results hold a scale-out run,
DIR/scaling-scaleout-NAME.png (the simulated wall against executors).
"""

import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from bench.compile_bench import compile_bench_lib as lib  # noqa: E402
from bench.compile_bench import scaling_lib  # noqa: E402

COLORS = {"bazel_staged": "tab:blue", "bazel_unstaged": "tab:orange", "nvcc": "tab:green", "nvcc_t0": "tab:red", "runner": "tab:purple"}


def _series(groups, runs, archs, variant, fn):
    """(sources, median of fn) over the shapes with one target per source."""
    xs, ys = [], []
    for shape, n, t in scaling_lib.shapes_of(runs):
        if n != t:
            continue
        vruns = groups.get((shape, archs, variant, "cold"), [])
        v = lib.median([fn(r) for r in vruns])
        if v is not None:
            xs.append(n)
            ys.append(v)
    return xs, ys


def _many(groups, runs, archs, variant, fn):
    """The shapes with several sources per target: [(sources, value, shape)]."""
    out = []
    for shape, n, t in scaling_lib.shapes_of(runs):
        if n == t:
            continue
        v = lib.median([fn(r) for r in groups.get((shape, archs, variant, "cold"), [])])
        if v is not None:
            out.append((n, v, shape))
    return out


def _legend(ax, **kwargs):
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kwargs)


def plot_scaling(doc, archs_list, out_png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = doc.get("runs", [])
    groups = scaling_lib.group(runs)
    cores = doc.get("machine", {}).get("cores", "?")
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    panels = [(axes[0][0], archs_list[0]), (axes[0][1], archs_list[1])]
    for ax, archs in panels:
        for variant in scaling_lib.VARIANT_ORDER:
            for metric, style in (("wall_s", "-"), ("cpu_s", ":")):
                xs, ys = _series(groups, runs, archs, variant, lambda r: scaling_lib.per_source(r, metric))
                if xs:
                    ax.plot(xs, ys, style, marker="o", color=COLORS[variant],
                            label="%s, %s" % (scaling_lib.NAMES[variant], "wall" if metric == "wall_s" else "CPU"))
            for n, v, shape in _many(groups, runs, archs, variant, lambda r: scaling_lib.per_source(r, "wall_s")):
                ax.plot([n], [v], marker="s", color=COLORS[variant], linestyle="none")
                ax.annotate(shape, (n, v), fontsize=6, xytext=(3, 3), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("sources (one cuda_library each; squares: several per target)")
        ax.set_ylabel("seconds per source (median)")
        ax.set_title("cold build, %s" % archs, fontsize=9)
        _legend(ax, fontsize=6)
    ax = axes[1][0]
    ax2 = ax.twinx()
    for archs, style in ((archs_list[0], "-"), (archs_list[1], "--")):
        for variant in ("bazel_staged", "bazel_unstaged"):
            xs, ys = _series(groups, runs, archs, variant, lambda r: r.get("analysis_s"))
            if xs:
                ax.plot(xs, ys, style, marker="o", color=COLORS[variant],
                        label="analysis, %s, %s" % (scaling_lib.NAMES[variant], scaling_lib.archs_label(archs)))
            xs, ys = _series(groups, runs, archs, variant, lambda r: r.get("heap_analysis_mb"))
            if xs:
                ax2.plot(xs, ys, style, marker="^", color=COLORS[variant], alpha=0.5,
                         label="heap, %s, %s" % (scaling_lib.NAMES[variant], scaling_lib.archs_label(archs)))
    ax.set_xscale("log")
    ax.set_xlabel("sources")
    ax.set_ylabel("loading + analysis, s (circles)")
    ax2.set_ylabel("used heap after GC, MB (triangles)")
    ax.set_title("analysis in a fresh server, and the heap it leaves", fontsize=9)
    ax.set_ylim(bottom=0)
    ax2.set_ylim(bottom=0)
    _legend(ax, fontsize=6, loc="upper left")
    _legend(ax2, fontsize=6, loc="lower right")
    ax = axes[1][1]
    for archs, style in ((archs_list[0], "-"), (archs_list[1], "--")):
        for variant in ("bazel_staged", "bazel_unstaged"):
            xs, ys = _series(groups, runs, archs, variant, lambda r: lib.median(r.get("null_s") or [None]))
            if xs:
                ax.plot(xs, ys, style, marker="o", color=COLORS[variant],
                        label="null build, %s, %s" % (scaling_lib.NAMES[variant], scaling_lib.archs_label(archs)))
            xs, ys = _series(groups, runs, archs, variant, lambda r: (r.get("edit") or {}).get("wall_s"))
            if xs:
                ax.plot(xs, ys, style, marker="x", color=COLORS[variant], alpha=0.6,
                        label="one-file edit, %s, %s" % (scaling_lib.NAMES[variant], scaling_lib.archs_label(archs)))
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("sources")
    ax.set_ylabel("seconds")
    ax.set_title("null build and one-file edit", fontsize=9)
    _legend(ax, fontsize=6)
    fig.suptitle("Scaling with the number of small .cu files, %s cores" % cores, fontsize=10)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def plot_scaleout(doc, out_png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    so = doc.get("scaleout")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for curve in so["curves"]:
        xs = [w["executors"] for w in curve["walls"]]
        ys = [w["wall_s"] for w in curve["walls"]]
        ax.plot(xs, ys, marker="o", label="%s (longest chain %.1f s)" % (curve["name"], curve["longest_chain_s"]))
        ax.axhline(curve["longest_chain_s"], linestyle=":", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("executors")
    ax.set_ylabel("simulated wall, s")
    ax.set_title("%s cold build, %s: simulated on N executors (tools/cache_report:scaleout)" % (so["shape"], so["archs"]),
                 fontsize=8)
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
    opts = p.parse_args()
    with open(opts.results) as f:
        doc = json.load(f)
    plot_scaling(doc, [opts.archs, opts.dev_archs], os.path.join(opts.out, "scaling-%s.png" % opts.name))
    if doc.get("scaleout"):
        plot_scaleout(doc, os.path.join(opts.out, "scaling-scaleout-%s.png" % opts.name))


if __name__ == "__main__":
    main()
