#!/usr/bin/env python3
"""Each tool's own CPU: the staged runner's stages against the same steps inside nvcc, file by file.

Both run through a copy of the toolkit whose tools and host compiler log their
own CPU (tool_cpu/wrap_toolkit.sh: wait4 user + system of the tool and its
children), so every tool run of nvcc and of the runner is counted by the same
timer, whatever else the machine runs. Per corpus file and repetition
(alternated), one file at a time:

  nvcc     `nvcc [-t N] -time CSV <args>`: each step's CPU (the tools' log),
           nvcc's total CPU (wait4), and its own -time walls;
  runner   `nvcc_plan.py --run -j J --table=CSV -- <args>`: each stage's CPU
           (the table: /bin/sh, the tool, anything the script runs), the tools'
           own CPU inside it (the log), and the runner's total (Python too).

Steps are matched to stages by tool and arguments (gcc -E with
-D__CUDA_ARCH__=NNN is a device preprocess, ...; a cicc front end or back end
counts as cicc). The report gives, per file and per stage kind, nvcc's CPU,
the runner's tools' and its scripts', and what is left (the runner's Python
and nvcc --dryrun; nvcc's driver). docs/performance/history.md, "The
registration stub's front end", has a run and how to read it.

  bench/compile_bench/tool_cpu/wrap_toolkit.sh /usr/local/cuda /tmp/wcuda
  python3 bench/compile_bench/tool_cpu.py --toolkit=/tmp/wcuda --out=cpu.jsonl \
      --jobs=16 --nvcc_threads=0 [--files=cub_scan,thrust_ops] [--reps=2] [--runner=PATH]
  python3 bench/compile_bench/tool_cpu.py --report=cpu.jsonl
"""

import argparse
import csv
import io
import json
import os
import re
import shutil
import statistics
import sys
import tempfile

import nvcc_runs  # beside this file: the corpus, its nvcc options, the timed run

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from tools.nvcc_plan import stage_graph  # noqa: E402 - the runner's stage keys
from tools.nvcc_plan import stages  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(REPO, "bench", "corpus")
DEFAULT_ARCHS = nvcc_runs.DEFAULT_ARCHS
# The corpus's files and options, as bench/run and nvcc_runs.py compile them.
CORPUS_OPTIONS = nvcc_runs.read_corpus(os.path.join(BENCH, "corpus.bzl"))
CORPUS = list(CORPUS_OPTIONS)


def classify(tool, args):
    """The stage a logged tool run belongs to."""
    if tool == "cudafe++":
        return stages.FRONTEND.name
    if tool == "cicc":
        m = re.search(r"(?:-arch |--nv_arch |-arch=)(compute_\w+)", args)
        return stage_graph.instance_key(stages.CICC.name, {"virtual": m.group(1) if m else "?"})
    if tool == "ptxas":
        m = re.search(r"-arch=(sm_\w+)", args)
        return stage_graph.instance_key(stages.PTXAS.name, {"real": m.group(1) if m else "?"})
    if tool in ("fatbinary", "nvlink"):
        return tool
    if tool in ("gcc", "g++"):
        if " -r " in " %s " % args or args.startswith("-r "):
            return "embed_fatbin(ld -r)"
        if " -x c " in " %s " % args:
            return "embed_fatbin(cc)"
        m = re.search(r"-D__CUDA_ARCH__=(\d+)", args)
        if " -E " in " %s " % args or args.startswith("-E "):
            if m:
                return stage_graph.instance_key(stages.STEP_DEVICE_CPP, {"virtual": "compute_%s" % m.group(1)[:-1]})
            if "__CUDA_ARCH_LIST__" in args:
                return stages.STEP_HOST_CPP
            return "nvcc_host_compiler_probe"
        if " -c " in " %s " % args:
            return stages.HOST_COMPILE.name
        return "gcc?"
    return tool + "?"


def parse_steps(path):
    out = []
    if not os.path.exists(path):
        return out
    for line in open(path, errors="replace"):
        parts = line.rstrip("\n").split(" ", 4)
        if len(parts) < 4:
            continue
        tool, wall, user, sys_ = parts[0], float(parts[1]), float(parts[2]), float(parts[3])
        args = parts[4] if len(parts) > 4 else ""
        out.append({"stage": classify(tool, args), "wall": wall, "cpu": user + sys_})
    return out


def nvcc_time_csv(path):
    """{stage: wall s} from nvcc -time's CSV."""
    out = {}
    if not os.path.exists(path):
        return out
    rows = list(csv.reader(open(path)))
    for r in rows[1:]:
        if len(r) < 8:
            continue
        phase, arch, ms = r[1].strip(), r[4].strip(), float(r[6])
        key = {"gcc (preprocessing 4)": stages.STEP_HOST_CPP, "cudafe++": stages.FRONTEND.name,
               "fatbinary": "fatbinary", "gcc (compiling)": stages.HOST_COMPILE.name,
               "nvcc (driver)": "nvcc_driver"}.get(phase)
        if phase == "gcc (preprocessing 1)":
            key = stage_graph.instance_key(stages.STEP_DEVICE_CPP, {"virtual": arch})
        elif phase == "cicc":
            key = stage_graph.instance_key(stages.CICC.name, {"virtual": arch})
        elif phase == "ptxas":
            key = stage_graph.instance_key(stages.PTXAS.name, {"real": arch})
        if key:
            out[key] = out.get(key, 0) + ms / 1000
    return out


def table_stages(path):
    out = {}
    if not os.path.exists(path):
        return out
    for r in csv.DictReader(open(path)):
        out[r["stage"]] = {"wall": float(r["wall_s"]), "cpu": float(r["cpu_s"]), "start": float(r["start_s"]),
                           "end": float(r["end_s"])}
    return out


def one(opts, name, variant, rep):
    wdir = tempfile.mkdtemp(prefix="cpu.%s.%s." % (variant, name), dir=opts.workdir)
    tk = opts.toolkit
    env = dict(os.environ, STEP_LOG=os.path.join(wdir, "steps.log"))
    args = nvcc_runs.nvcc_args(BENCH, name, CORPUS_OPTIONS[name], opts.archs, os.path.join(tk, "ccbin"))
    args += ["-o", os.path.join(wdir, name + ".o")]
    args += opts.extra.split()
    if variant == "nvcc":
        argv = [os.path.join(tk, "bin", "nvcc"), "-time", os.path.join(wdir, "time.csv")] + args
        if opts.nvcc_threads is not None:
            argv[1:1] = ["-t", str(opts.nvcc_threads)]
    else:
        argv = [sys.executable, opts.runner, "--run", "-j", str(opts.jobs), "--nvcc=" + os.path.join(tk, "bin", "nvcc"),
                "--table=" + os.path.join(wdir, "table.csv")] + opts.runner_flags.split() + ["--"] + args
    wall, cpu, rc = nvcc_runs.run_child(argv, wdir, os.path.join(wdir, "log.txt"), env=env)
    rec = {"file": name, "variant": variant, "rep": rep, "wall": round(wall, 3), "cpu": round(cpu, 3), "rc": rc,
           "steps": parse_steps(env["STEP_LOG"]), "load": os.getloadavg()[0]}
    if variant == "nvcc":
        rec["nvcc_time"] = nvcc_time_csv(os.path.join(wdir, "time.csv"))
    else:
        rec["table"] = table_stages(os.path.join(wdir, "table.csv"))
    if rc != 0:
        rec["log"] = open(os.path.join(wdir, "log.txt"), errors="replace").read()[-1500:]
    shutil.rmtree(wdir, ignore_errors=True)
    return rec


def measure(opts):
    files = opts.files.split(",") if opts.files else CORPUS
    os.makedirs(opts.workdir, exist_ok=True)
    for rep in range(opts.reps):
        for name in files:
            order = ["nvcc", "runner"] if rep % 2 == 0 else ["runner", "nvcc"]
            for variant in order:
                rec = one(opts, name, variant, rep)
                rec["config"] = opts.config
                with open(opts.out, "a") as f:
                    f.write(json.dumps(rec) + "\n")
                print("%s %s rep %d: wall %.2f cpu %.2f rc %d load %.1f" % (name, variant, rep, rec["wall"], rec["cpu"],
                                                                          rc_or(rec), rec["load"]), flush=True)


def rc_or(rec):
    return rec["rc"]


def kind(stage):
    return stage.split("/")[0].split("(")[0]


def report(path, config=None):
    recs = [json.loads(l) for l in open(path)]
    if config:
        recs = [r for r in recs if r.get("config") == config]
    files = sorted({r["file"] for r in recs}, key=lambda f: CORPUS.index(f) if f in CORPUS else 99)
    # per file: median over reps of each quantity
    rows = []
    tot = {}
    lines = []
    for f in files:
        nv = [r for r in recs if r["file"] == f and r["variant"] == "nvcc" and r["rc"] == 0]
        ru = [r for r in recs if r["file"] == f and r["variant"] == "runner" and r["rc"] == 0]
        if not nv or not ru:
            continue
        def med(xs):
            return statistics.median(xs) if xs else 0.0
        def by_kind(steps):
            d = {}
            for s in steps:
                d[kind(s["stage"])] = d.get(kind(s["stage"]), 0) + s["cpu"]
            return d
        nk = [by_kind(r["steps"]) for r in nv]
        rk = [by_kind(r["steps"]) for r in ru]
        rt = []
        for r in ru:
            d = {}
            for st, v in r["table"].items():
                d[kind(st)] = d.get(kind(st), 0) + v["cpu"]
            rt.append(d)
        kinds = ["plan", "nvcc_host_compiler_probe"] + [s.name for s in stages.COMPILE_STAGES]
        per = {}
        for k in kinds:
            per[k] = (med([d.get(k, 0) for d in nk]), med([d.get(k, 0) for d in rk]), med([d.get(k, 0) for d in rt]))
        n_tot, r_tot = med([r["cpu"] for r in nv]), med([r["cpu"] for r in ru])
        n_steps, r_tools = med([sum(s["cpu"] for s in r["steps"]) for r in nv]), med([sum(s["cpu"] for s in r["steps"]) for r in ru])
        r_table = med([sum(v["cpu"] for v in r["table"].values()) for r in ru])
        rows.append((f, n_tot, r_tot, n_steps, r_tools, r_table, per, med([r["wall"] for r in nv]), med([r["wall"] for r in ru])))
        for k, v in per.items():
            t = tot.setdefault(k, [0, 0, 0])
            for i in range(3):
                t[i] += v[i]
        for key, val in (("_total", (n_tot, r_tot, r_table)), ("_tools", (n_steps, r_tools, 0))):
            t = tot.setdefault(key, [0, 0, 0])
            for i in range(3):
                t[i] += val[i]
    lines.append("| file | nvcc CPU | runner CPU | ratio | nvcc: steps / driver | runner: tools / scripts / Python+plan | wall nvcc / runner (-j) |")
    lines.append("| --- | ---: | ---: | ---: | --- | --- | --- |")
    for f, n_tot, r_tot, n_steps, r_tools, r_table, per, nw, rw in rows:
        lines.append("| %s | %.2f | %.2f | %.3fx | %.2f / %.2f | %.2f / %.2f / %.2f | %.2f / %.2f |" % (
            f, n_tot, r_tot, r_tot / n_tot, n_steps, n_tot - n_steps, r_tools, r_table - r_tools + per["plan"][2] - per["plan"][2],
            r_tot - r_table, nw, rw))
    t = tot.get("_total", [0, 0, 0])
    tt = tot.get("_tools", [0, 0, 0])
    if t[0]:
        lines.append("| **all** | %.2f | %.2f | %.3fx | %.2f / %.2f | %.2f / %.2f / %.2f | |" % (
            t[0], t[1], t[1] / t[0], tt[0], t[0] - tt[0], tt[1], t[2] - tt[1], t[1] - t[2]))
    lines.append("")
    lines.append("Per stage kind, summed over the files (medians per file): nvcc's step CPU, the runner's tool CPU, the runner's stage-script CPU.")
    lines.append("")
    lines.append("| stage | nvcc step | runner tool | runner script | tool delta | script overhead |")
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    for k, v in tot.items():
        if k.startswith("_"):
            continue
        lines.append("| %s | %.2f | %.2f | %.2f | %+.2f | %+.2f |" % (k, v[0], v[1], v[2], v[1] - v[0], v[2] - v[1]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--report")
    ap.add_argument("--config", default="", help="a name stored with each run; --report: only the runs of this name")
    ap.add_argument("--files", default="")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--archs", default=DEFAULT_ARCHS)
    ap.add_argument("--extra", default="")
    ap.add_argument("--nvcc_threads", type=int, default=None)
    ap.add_argument("--toolkit", help="a toolkit wrapped by tool_cpu/wrap_toolkit.sh")
    ap.add_argument("--runner", default=os.path.join(REPO, "tools", "nvcc_plan", "nvcc_plan.py"))
    ap.add_argument("--runner_flags", default="")
    ap.add_argument("--workdir", default="/tmp/cpu_compare")
    opts = ap.parse_args()
    if opts.report:
        print(report(opts.report, opts.config))
        return 0
    if not opts.toolkit or not opts.out:
        ap.error("--toolkit (tool_cpu/wrap_toolkit.sh's output) and --out are needed to measure")
    measure(opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
