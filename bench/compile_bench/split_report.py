"""Split compilation against each file's floor: a report of nvcc_runs.py's runs (standard library only).

  python3 bench/compile_bench/split_report.py --runs=OUT/files.json,OUT/corpus.json --time_dir=OUT/time

For every file run alone it prints, side by side: nvcc -t 0, nvcc's fastest
mode (-t 0 --split-compile=0), the staged runner with split compilation,
the file's floor, and the runner's critical path. The floor (issue 42) is,
from nvcc's own `--time` of that file in its fastest mode (the same runs):

  max(host chain, slowest arch's device chain) + fatbinary
  host chain   = gcc -E of the host side + cudafe++ + the host compile
  device chain = gcc -E of the arch's device side + its cicc + its slowest ptxas

The registration stub's front end runs beside cudafe++ and nvcc does not
run it (nvcc takes the stub from the registration arch's whole cicc), so this
floor leaves it out and is a lower bound. Issue 42 defines the host chain with
it, as "cudafe++ ∥ the stub's front end": the report prints that floor too,
with the runner's own `frontend` stage (the two side by side, its --table
wall, mean over the runs that recorded it) in place of cudafe++ where it is
longer. It also prints each floor against nvcc's fastest mode: with the tools'
own times, no schedule of the stages beats that ratio.
Each ratio is of mean wall times over the repetitions; CPU is user + system of
everything each one ran.
"""

import argparse
import collections
import json
import os
import re
import statistics
import sys


def read_time_csv(path):
    """nvcc --time's rows, as blocks (one per compile): [[{phase, arch, input, ms}]]."""
    blocks, block = [], []
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.split(",")]
            if len(cells) < 8 or cells[1] == "phase name":
                continue
            row = {"phase": cells[1], "input": cells[2], "arch": cells[4], "ms": float(cells[6])}
            block.append(row)
            if row["phase"] == "nvcc (driver)":
                blocks.append(block)
                block = []
    return blocks


def floor_s(block, frontend_s=None):
    """(floor, host chain, slowest device chain, its arch) in seconds from one compile's --time rows.

    frontend_s: the time of cudafe++ and the stub's front end side by side
    (the runner's `frontend` stage); the host chain takes it where it is longer
    than nvcc's cudafe++ alone.
    """
    ms = collections.defaultdict(float)
    device = collections.defaultdict(float)
    ptxas = collections.defaultdict(float)
    for r in block:
        phase = r["phase"]
        if phase == "gcc (preprocessing 4)":
            ms["pp4"] += r["ms"]
        elif phase == "cudafe++":
            ms["cudafe"] += r["ms"]
        elif phase == "gcc (compiling)":
            ms["host_cc"] += r["ms"]
        elif phase == "fatbinary":
            ms["fatbinary"] += r["ms"]
        elif phase in ("gcc (preprocessing 1)", "cicc"):
            device[r["arch"]] += r["ms"]
        elif phase == "ptxas":
            m = re.search(r"compute_([0-9]+[af]?)", r["input"])
            virtual = "compute_" + m.group(1) if m else r["arch"]
            ptxas[virtual] = max(ptxas[virtual], r["ms"])
    chains = {v: device[v] + ptxas.get(v, 0.0) for v in device}
    frontend = max(ms["cudafe"], frontend_s * 1000.0) if frontend_s is not None else ms["cudafe"]
    host = ms["pp4"] + frontend + ms["host_cc"]
    arch, slowest = max(chains.items(), key=lambda kv: kv[1]) if chains else ("", 0.0)
    return (max(host, slowest) + ms["fatbinary"]) / 1000.0, host / 1000.0, slowest / 1000.0, arch


def _mean(values):
    return statistics.mean(values) if values else None


def _ratio(a, b):
    return a / b if a is not None and b else None


def _fmt(value, spec="%.2f"):
    return spec % value if value is not None else "-"


def report(runs, time_dir):
    alone = collections.defaultdict(lambda: collections.defaultdict(list))
    corpus = collections.defaultdict(list)
    paths = {}
    frontends = collections.defaultdict(list)
    for run in runs:
        if not run.get("ok"):
            continue
        if run["scope"] == "file":
            rec = run["files"][run["file"]]
            alone[run["file"]][run["variant"]].append((run["wall_s"], run["cpu_s"]))
            if run["variant"] == "runner_split" and rec.get("critical_path"):
                paths[run["file"]] = (rec.get("critical_path_s"), rec["critical_path"])
            if run["variant"] == "runner_split":
                # The runner's --table rows: stage, mnemonic, arch, start, end, wall, CPU.
                frontends[run["file"]] += [float(s[5]) for s in rec.get("stages", []) if s and s[0] == "frontend"]
        else:
            corpus[run["variant"]].append((run["wall_s"], run["cpu_s"]))
    lines = ["| file | nvcc -t 0 | -t 0 --split-compile=0 | staged, split | floor (host / device chain) | "
             "staged ÷ fastest | staged ÷ floor | floor with the stub's front end | staged ÷ it | floor ÷ fastest | "
             "CPU staged ÷ fastest | staged critical path |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    to_fastest, to_floor, to_stub_floor, floor_to_fastest = [], [], [], []
    for name in sorted(alone):
        v = alone[name]
        t0 = _mean([w for w, _ in v.get("nvcc_t0", [])])
        fast = _mean([w for w, _ in v.get("nvcc_t0_split0", [])])
        fast_cpu = _mean([c for _, c in v.get("nvcc_t0_split0", [])])
        staged = _mean([w for w, _ in v.get("runner_split", [])])
        staged_cpu = _mean([c for _, c in v.get("runner_split", [])])
        floor = host = device = stub_floor = None
        arch = ""
        frontend = _mean(frontends.get(name, []))
        csv = os.path.join(time_dir, name + ".csv") if time_dir else ""
        if csv and os.path.exists(csv):
            blocks = read_time_csv(csv)
            floors = [floor_s(b) for b in blocks]
            if floors:
                floor = _mean([f[0] for f in floors])
                host = _mean([f[1] for f in floors])
                device = _mean([f[2] for f in floors])
                arch = floors[-1][3]
                if frontend is not None:
                    stub_floor = _mean([floor_s(b, frontend)[0] for b in blocks])
        r_fast, r_floor, r_stub = _ratio(staged, fast), _ratio(staged, floor), _ratio(staged, stub_floor)
        best_floor = stub_floor if stub_floor is not None else floor
        if r_fast:
            to_fastest.append(r_fast)
        if r_floor:
            to_floor.append(r_floor)
        if r_stub:
            to_stub_floor.append(r_stub)
        if best_floor and fast:
            floor_to_fastest.append(best_floor / fast)
        path = paths.get(name)
        lines.append("| %s | %s | %s | %s | %s (%s / %s %s) | %s | %s | %s | %s | %s | %s | %s |" % (
            name, _fmt(t0), _fmt(fast), _fmt(staged), _fmt(floor), _fmt(host), _fmt(device), arch,
            _fmt(r_fast), _fmt(r_floor), _fmt(stub_floor), _fmt(r_stub), _fmt(_ratio(best_floor, fast)),
            _fmt(_ratio(staged_cpu, fast_cpu)),
            "%s s: %s" % (_fmt(path[0]), path[1]) if path else "-"))
    if to_fastest:
        lines.append("")
        lines.append("Files alone: staged ÷ nvcc's fastest mode, mean over %d files: **%.2fx**; staged ÷ floor: "
                     "mean %.2fx, worst %.2fx." % (len(to_fastest), statistics.mean(to_fastest),
                                                   statistics.mean(to_floor) if to_floor else 0.0,
                                                   max(to_floor) if to_floor else 0.0))
    if to_stub_floor:
        lines.append("")
        lines.append("Staged ÷ the floor with the stub's front end: mean %.2fx, worst %.2fx, %d of %d files within "
                     "1.10x." % (statistics.mean(to_stub_floor), max(to_stub_floor),
                                 sum(1 for r in to_stub_floor if r <= 1.10), len(to_stub_floor)))
    if floor_to_fastest:
        lines.append("")
        lines.append("The floor itself ÷ nvcc's fastest mode (with the stub's front end where recorded): mean %.2fx "
                     "over %d files (%.2f–%.2fx): with these tools' own times no schedule of the stages beats that." % (
                         statistics.mean(floor_to_fastest), len(floor_to_fastest), min(floor_to_fastest),
                         max(floor_to_fastest)))
    if corpus:
        lines.append("")
        lines.append("| corpus, every file at once | wall s | CPU s | wall ÷ fastest | CPU ÷ fastest |")
        lines.append("| --- | --- | --- | --- | --- |")
        fast_w = _mean([w for w, _ in corpus.get("nvcc_t0_split0", [])])
        fast_c = _mean([c for _, c in corpus.get("nvcc_t0_split0", [])])
        for variant in ("nvcc_t0", "nvcc_t0_split0", "runner", "runner_split"):
            if variant in corpus:
                w = _mean([x for x, _ in corpus[variant]])
                c = _mean([x for _, x in corpus[variant]])
                lines.append("| %s (%d runs) | %.2f | %.2f | %s | %s |" % (
                    variant, len(corpus[variant]), w, c, _fmt(_ratio(w, fast_w)), _fmt(_ratio(c, fast_c))))
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", required=True, help="comma-separated JSON files of nvcc_runs.py")
    p.add_argument("--time_dir", default="", help="nvcc_runs.py's --time_dir")
    opts = p.parse_args(argv)
    runs = []
    for path in opts.runs.split(","):
        with open(path) as f:
            runs += json.load(f)["runs"]
    sys.stdout.write(report(runs, opts.time_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
