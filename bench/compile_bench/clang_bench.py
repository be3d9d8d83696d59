"""Benchmark (not a test): clang as the CUDA compiler in stages against clang's own one-shot compiles.

    bench/run clang [--reps=3] [--jobs=N] [--archs=...] [--files=a,b] [--name=NAME]
                    [--clang=21|22] [--variants=staged,oneshot,hermetic]

The corpus (bench/corpus) sources that clang 21 compiles with CUDA 12.4 (the
supported pair; cub_scan and softmax need a newer CCCL) are built, cold, two
ways, alternated (the order reversed every other repetition) and repeated:

  staged   `bazel build` of their cuda_library targets with
           --@rules_cuda_stages//cuda_rules:compiler=clang (every stage one
           action; `bazel clean` before, no disk cache), --jobs actions at a time
  oneshot  the very driver call each source's CudaPlan planned from
           (plan/clang_args.json), as one `clang -c` per source, --jobs sources
           at a time: what a build with one clang action per file (rules_cuda's
           clang mode) runs, without Bazel's own cost (clang_oneshot.py)

With --clang=22 (clang 22 with CUDA 13.0, every corpus file), a third
variant may join (--variants=staged,hermetic):

  hermetic the staged build with the hermetic clang 22
           (--@rules_cuda_stages//cuda_rules:host_toolchain=clang22) instead
           of tools/bazelw's clang22 addon: what the pinned toolchain costs

All in tools/bazelw's root, with its clang (21, or 22) and the same flags. Wall:
the staged build's `bazel build` (analysis done before, untimed), the
oneshot's first start to last end. CPU: the Bazel server's waited-for
children (every action) and the one-shot's clang processes. Printed: one
line per run, then a table of medians and the ratio staged / oneshot;
results-<name>.json and tables-<name>.md in --out.
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from tools.cache_report import cache_report_lib  # noqa: E402
from bench.compile_bench import compile_bench_lib as lib  # noqa: E402
from bench.compile_bench import nvcc_runs  # noqa: E402

BAZELW = os.path.join(REPO, "tools", "bazelw")
# clang 21 with CUDA 12.4 and clang 22 with 13.0 (cuda_rules/private/compile/clang.bzl's CLANG_CUDA_PAIRS):
# tools/bazelw's clang addons (--//tests/host_clang:clang, --//tests/clang:clang22).
CLANGS = {
    21: ["--//cuda_rules:compiler=clang", "--//tests/host_clang:clang", "--//cuda_rules:toolkit=12.4"],
    22: ["--//cuda_rules:compiler=clang", "--//tests/clang:clang22", "--//cuda_rules:toolkit=13.0"],
}
# The hermetic clang 22 in place of the addon's.
HERMETIC = ["--//cuda_rules:compiler=clang", "--//cuda_rules:host_toolchain=clang22", "--//cuda_rules:toolkit=13.0"]
# Not with CUDA 12.4's CCCL: cuda::maximum (as with nvcc 12.4, docs/performance/history.md).
NEEDS_NEWER_CCCL = ("cub_scan", "softmax")


def log(msg):
    print("[clang-bench %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


class Bench:
    def __init__(self, opts):
        self.opts = opts
        self.jobs = opts.jobs or os.cpu_count()
        self.scratch = os.path.join(lib.bazel_user_root(BAZELW, REPO), "rules_cuda_stages_clang_bench")
        self.output_base = os.path.join(self.scratch, "output_base")
        self.corpus = os.path.join(self.scratch, "corpus")
        self.doc = {"machine": {}, "runs": []}
        self.clang = CLANGS[opts.clang]
        self.variants = opts.variants.split(",")
        unknown = [v for v in self.variants if v not in ("staged", "oneshot", "hermetic")]
        if unknown or ("hermetic" in self.variants and opts.clang != 22):
            raise SystemExit("clang_bench: --variants: staged, oneshot, and hermetic (with --clang=22); got %s" % opts.variants)
        self.server_pid = None
        self.plans = []

    def bazel(self, *args, capture=False):
        proc = subprocess.run([BAZELW, "--output_base=" + self.output_base, *args], cwd=REPO,
                              stdout=subprocess.PIPE if capture else subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise SystemExit("clang_bench: `bazel %s` failed:\n%s" % (" ".join(args), proc.stderr[-4000:]))
        return proc.stdout

    def flags(self, exec_log=None, clang=None):
        f = ["--noshow_progress", "--ui_event_filters=-info,-warning,-stdout,-stderr", "--symlink_prefix=/",
             "--override_module=rules_cuda_stages_bench=" + self.corpus, "--jobs=%d" % self.jobs,
             "--output_groups=cuda_objects", "--//cuda_rules:archs=" + self.opts.archs] + (clang or self.clang)
        if exec_log:
            f += ["--execution_log_json_file=" + exec_log, "--noexecution_log_sort"]
        return f

    def targets(self):
        return ["@rules_cuda_stages_bench//:" + n for n in self.names]

    def prepare(self):
        if os.path.isdir(self.output_base):
            subprocess.run([BAZELW, "--output_base=" + self.output_base, "shutdown"], cwd=REPO,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.scratch, ignore_errors=True)
        os.makedirs(self.scratch)
        shutil.copytree(os.path.join(REPO, "bench", "corpus"), self.corpus, ignore=shutil.ignore_patterns("bazel-*"))
        corpus = nvcc_runs.read_corpus(os.path.join(self.corpus, "corpus.bzl"))
        older = NEEDS_NEWER_CCCL if self.opts.clang == 21 else ()
        self.names = self.opts.files.split(",") if self.opts.files else [n for n in corpus if n not in older]
        unknown = [n for n in self.names if n not in corpus]
        if unknown:
            raise SystemExit("clang_bench: not in the corpus: %s" % ", ".join(unknown))
        log("scratch: %s; files: %s" % (self.scratch, ", ".join(self.names)))
        log("warming up: repositories, the server, one untimed build")
        if "hermetic" in self.variants:
            self.bazel("build", *self.flags(clang=HERMETIC), *self.targets())
        self.bazel("build", *self.flags(), *self.targets())
        self.execroot = self.bazel("info", *self.clang, "execution_root", capture=True).strip()
        self.bin = self.bazel("info", *self.clang, "bazel-bin", capture=True).strip()
        # The driver calls, kept outside bazel-out (a clean removes it).
        plans = sorted(glob.glob(os.path.join(self.bin, "external", "rules_cuda_stages_bench~", "_cuda", "*", "*",
                                              "plan", "clang_args.json")))
        if len(plans) != len(self.names):
            raise SystemExit("clang_bench: %d clang plans for %d files under %s" % (len(plans), len(self.names), self.bin))
        os.makedirs(os.path.join(self.scratch, "plans"))
        for i, path in enumerate(plans):
            copy = os.path.join(self.scratch, "plans", "%d.json" % i)
            shutil.copy(path, copy)
            self.plans.append(copy)
        self.server_pid = int(self.bazel("info", "server_pid", capture=True).strip())
        self.doc["machine"] = {
            "cores": os.cpu_count(), "jobs": self.jobs, "clang": self.opts.clang, "variants": self.variants, "cpu_model": nvcc_runs._cpu_model(), "archs": self.opts.archs,
            "files": self.names, "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "uptime": subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip(),
            "bazel": self.bazel("version", capture=True).strip().splitlines()[0],
        }

    def server_cpu(self):
        return lib.process_cpu(self.server_pid)

    def record(self, run):
        run["time"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.doc["runs"].append(run)
        with open(os.path.join(self.opts.out, "results-%s.json" % self.opts.name), "w") as f:
            json.dump(self.doc, f, indent=1)
        log("rep %d %-8s wall %6.1f s  cpu %6.1f s  load %.1f" % (run["rep"], run["variant"], run["wall_s"], run["cpu_s"],
                                                                  run["load_before"]))

    def staged(self, rep, variant="staged", clang=None):
        self.bazel("clean")
        self.bazel("build", "--nobuild", *self.flags(clang=clang), *self.targets())
        exec_log = os.path.join(self.scratch, "%s.%d.json" % (variant, rep))
        load = os.getloadavg()[0]
        own0, children0 = self.server_cpu()
        t0 = time.monotonic()
        self.bazel("build", *self.flags(exec_log, clang=clang), *self.targets())
        wall = time.monotonic() - t0
        own1, children1 = self.server_cpu()
        if int(self.bazel("info", "server_pid", capture=True).strip()) != self.server_pid:
            raise SystemExit("clang_bench: the Bazel server restarted during a build; its CPU time is lost")
        spawns = cache_report_lib.read_json_log(exec_log)
        hits = [s for s in spawns if s.mnemonic.startswith("Cuda") and s.cache_hit]
        if hits:
            raise SystemExit("clang_bench: %d stages came from a cache in a cold build" % len(hits))
        self.record({
            "variant": variant, "rep": rep, "wall_s": round(wall, 3), "cpu_s": round(children1 - children0, 2),
            "cpu_server_s": round(own1 - own0, 2), "load_before": load, "stages": lib.stage_totals(spawns),
        })

    def hermetic(self, rep):
        self.staged(rep, "hermetic", HERMETIC)

    def oneshot(self, rep):
        # The execroot of the last build holds the sources and the toolkit the calls name.
        load = os.getloadavg()[0]
        proc = subprocess.run(
            [BAZELW, "--output_base=" + self.output_base, "run", "--noshow_progress", "--ui_event_filters=-info,-warning",
             *self.clang, "//bench/compile_bench:clang_oneshot", "--", "--execroot=" + self.execroot,
             "--external=" + os.path.join(self.output_base, "external"), "--jobs=%d" % self.jobs, *self.plans],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise SystemExit("clang_bench: the one-shot compiles failed:\n%s" % proc.stderr[-4000:])
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        self.record({"variant": "oneshot", "rep": rep, "wall_s": got["wall_s"], "cpu_s": got["cpu_s"],
                     "load_before": load, "files": got["files"]})

    def run(self):
        self.prepare()
        blocks = [getattr(self, v) for v in self.variants]
        for rep in range(1, self.opts.reps + 1):
            order = blocks if rep % 2 else list(reversed(blocks))
            for block in order:
                block(rep)
        self.doc["machine"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.doc["machine"]["uptime_end"] = subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip()
        with open(os.path.join(self.opts.out, "results-%s.json" % self.opts.name), "w") as f:
            json.dump(self.doc, f, indent=1)
        self.bazel("shutdown")
        return self.doc


def table(doc):
    """Markdown: the medians of both variants and their ratios, then every run."""
    runs = doc["runs"]

    def med(variant, key):
        values = [r[key] for r in runs if r["variant"] == variant]
        return statistics.median(values) if values else float("nan")

    m = doc["machine"]
    variants = [v for v in ("staged", "hermetic", "oneshot") if any(r["variant"] == v for r in runs)]
    what = {
        "staged": "staged (Bazel, one action per stage)",
        "hermetic": "staged, the hermetic clang 22 (host_toolchain=clang22)",
        "oneshot": "one-shot `clang -c` per file",
    }
    lines = [
        "clang %s as the CUDA compiler, %d files (%s), archs %s, %d cores, --jobs=%d, %s; started %s (%s)" % (
            m.get("clang", 21), len(m["files"]), ", ".join(m["files"]), m["archs"], m["cores"], m["jobs"], m["bazel"],
            m["started"], m["uptime"]),
        "",
        "| | wall (median) | CPU (median) |",
        "| --- | --- | --- |",
    ]
    for v in variants:
        lines.append("| %s | %.1f s | %.1f s |" % (what[v], med(v, "wall_s"), med(v, "cpu_s")))
    for num, den in (("staged", "oneshot"), ("hermetic", "staged")):
        if num in variants and den in variants:
            lines.append("| **%s / %s** | **%.2fx** | %.2fx |" % (
                num, den, med(num, "wall_s") / med(den, "wall_s"), med(num, "cpu_s") / med(den, "cpu_s")))
    lines += [
        "",
        "| rep | variant | wall | CPU | load before |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in runs:
        lines.append("| %d | %s | %.1f s | %.1f s | %.1f |" % (r["rep"], r["variant"], r["wall_s"], r["cpu_s"], r["load_before"]))
    per_rep = {}
    for r in runs:
        per_rep.setdefault(r["rep"], {})[r["variant"]] = r["wall_s"]
    lines.append("")
    for num, den in (("staged", "oneshot"), ("hermetic", "staged")):
        ratios = ["%.2f" % (v[num] / v[den]) for _, v in sorted(per_rep.items()) if num in v and den in v]
        if ratios:
            lines.append("%s / %s per repetition: %s" % (num, den, ", ".join(ratios)))
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--jobs", type=int, default=0, help="default: the machine's cores")
    p.add_argument("--archs", default="sm_75,sm_80,sm_86,sm_90,compute_90")
    p.add_argument("--files", default="", help="corpus names (default: every file the clang compiles with its CUDA)")
    p.add_argument("--clang", type=int, default=21, choices=sorted(CLANGS), help="21 (with CUDA 12.4) or 22 (with 13.0)")
    p.add_argument("--variants", default="staged,oneshot", help="staged, oneshot, hermetic (--clang=22): each repetition runs them")
    p.add_argument("--out", default=os.path.join(REPO, "docs", "performance"))
    p.add_argument("--name", default="clang-" + time.strftime("%Y%m%d"))
    p.add_argument("--report", action="store_true", help="only print the table of --out/results-<name>.json")
    opts = p.parse_args(argv)
    os.makedirs(opts.out, exist_ok=True)
    if opts.report:
        with open(os.path.join(opts.out, "results-%s.json" % opts.name)) as f:
            doc = json.load(f)
    else:
        doc = Bench(opts).run()
    text = table(doc)
    with open(os.path.join(opts.out, "tables-%s.md" % opts.name), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
