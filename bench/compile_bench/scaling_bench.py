"""bench/run scaling: how the cost of a build grows with its number of small .cu files.

  bench/run scaling [--preset=full|full_small|full_1000|quick|validate | --cases=SHAPE/ARCHS/REPS/VARIANTS,...]
                      [--archs=sm_75,sm_80,sm_86,sm_90,compute_90] [--dev_archs=sm_90]
                      [--out=docs/performance] [--name=2core] [--append] [--dry_run]
  bench/run scaling --report_only [--name=2core]

Each case generates a workspace (scaling_gen.py: n<sources> files of one
kernel and its launcher, one cuda_library each, or n<sources>t<targets>) and
measures, for its arch setting (4: --archs, 1: --dev_archs), per repetition,
its variants in alternating order (reversed every other repetition):

  staged, unstaged   Bazel with --//cuda_rules:staged=true / false, each:
                     `bazel clean`, a fresh server, an untimed-for-the-build
                     `--nobuild` pass whose loading + analysis time is read
                     from its profile, `bazel info used-heap-size-after-gc`,
                     the cold build (fresh --disk_cache, a binary execution
                     log; wall, CPU of the server's children and its own),
                     the heap again, cache_report on the log (actions per
                     mnemonic, CudaPlan's share of action time), 3 null
                     builds, and a one-file edit (k0000.cu's device code)
                     built incrementally
  staged_nolog, unstaged_nolog   the cold build alone, without the log
  nvcc, nvcc_t0      nvcc per file / nvcc -t 0 per file (nvcc_runs.py, --jobs
                     files at a time, the Bazel builds' nvcc and host compiler)
  runner             the staged runner per file (nvcc_runs.py's runner:
                     nvcc_plan.py --run -j <cores>), the same stages without
                     Bazel
  scaleout           keep repetition 1's staged and unstaged logs and run
                     tools/cache_report:scaleout on them (the simulated wall
                     on 1..1024 executors)

Shapes with the same number of sources compile the same files, so nvcc's runs
of one serve the others (n200t10's table rows use n200's).

Results: <out>/results-scaling-<name>.json (every run, raw), tables:
<out>/tables-scaling-<name>.md, plots: <out>/scaling-<name>.png and
<out>/scaling-scaleout-<name>.png. Method: docs/performance/history.md, "Scaling".
"""

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from bench.compile_bench import compile_bench_lib as lib  # noqa: E402
from bench.compile_bench import nvcc_runs  # noqa: E402
from bench.compile_bench import scaling_gen  # noqa: E402
from bench.compile_bench import scaling_lib  # noqa: E402

BAZELW = os.path.join(REPO, "tools", "bazelw")
TARGETS = ["@rules_cuda_stages_bench//:all"]
NULL_BUILDS = 3
EDITED_SOURCE = scaling_gen.source_name(0)


def log(msg):
    print("[scaling %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def loadavg():
    return round(os.getloadavg()[0], 2)


class ScalingBench:
    def __init__(self, opts, cases):
        self.opts = opts
        self.cases = cases
        self.jobs = opts.jobs or os.cpu_count()
        user_root = lib.bazel_user_root(BAZELW, REPO)
        self.scratch = os.path.join(user_root, "rules_cuda_stages_scaling_bench")
        self.output_base = os.path.join(self.scratch, "output_base")
        self.logs_dir = opts.logs_dir or os.path.join(user_root, "rules_cuda_stages_scaling_logs", opts.name)
        self.results_path = results_path(opts)
        self.doc = {"machine": {}, "runs": [], "scaleout": None}
        if opts.append and os.path.exists(self.results_path):
            with open(self.results_path) as f:
                self.doc = json.load(f)
        self.server_pid = None
        self.kept_logs = {}  # token -> execution log kept for the scaleout of the current case

    # --- setup ---------------------------------------------------------------------
    def archs(self, case):
        return self.opts.archs if case.archs_key == "4" else self.opts.dev_archs

    def shape_dir(self, shape):
        return os.path.join(self.scratch, "shapes", shape.name)

    def check_disk(self):
        free_gb = shutil.disk_usage(os.path.dirname(self.scratch)).free / 2 ** 30
        worst = max(self.cases, key=scaling_lib.disk_gb)
        need = scaling_lib.disk_gb(worst)
        if free_gb < need:
            raise SystemExit("bench/run scaling: case %s needs ~%.0f GB free at its peak (outputs, disk cache, kept "
                             "logs), and %s has %.0f GB: free some space or leave the case out (--cases=...)"
                             % (worst.spec, need, os.path.dirname(self.scratch), free_gb))

    def prepare(self):
        self.check_disk()
        if os.path.isdir(self.output_base):
            subprocess.run(self.bazel_cmd("shutdown"), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.scratch, ignore_errors=True)
        os.makedirs(self.scratch)
        os.makedirs(self.logs_dir, exist_ok=True)
        for case in self.cases:
            if not os.path.isdir(self.shape_dir(case.shape)):
                scaling_gen.generate(self.shape_dir(case.shape), case.shape)
        log("scratch: %s; logs kept for scaleout in %s" % (self.scratch, self.logs_dir))
        log("building the tools (nvcc_runs, cache_report, scaleout) in the checkout's output base")
        proc = subprocess.run([BAZELW, "build", "--noshow_progress", "//bench/compile_bench:nvcc_runs",
                               "//tools/cache_report", "//tools/cache_report:scaleout"], cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise SystemExit("bench/run scaling: building the tools failed:\n%s" % proc.stderr[-4000:])
        first = self.cases[0]
        log("warming up: repositories and one untimed build of %s in the benchmark's output base" % first.shape.name)
        one = ["@rules_cuda_stages_bench//:" + scaling_gen.target_name(first.shape, 0)]
        for staged in (True, False):
            self.bazel("build", *self.flags(first.shape, self.opts.archs, staged), *one)
        self.bazel("clean")
        m = self.doc["machine"]
        m.update({
            "name": self.opts.name,
            "cores": os.cpu_count(),
            "jobs": self.jobs,
            "cpu_model": nvcc_runs._cpu_model(),
            "archs": self.opts.archs,
            "dev_archs": self.opts.dev_archs,
            "bazel": self.bazel("version", capture=True).strip().splitlines()[0],
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "uptime": subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip(),
        })
        m["cases"] = sorted(set(m.get("cases", [])) | {c.spec for c in self.cases})

    # --- Bazel -------------------------------------------------------------------------
    def bazel_cmd(self, *args):
        return [BAZELW, "--output_base=" + self.output_base, *args]

    def bazel(self, *args, capture=False):
        proc = subprocess.run(self.bazel_cmd(*args), cwd=REPO, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise SystemExit("bench/run scaling: `bazel %s` failed:\n%s" % (" ".join(args), proc.stderr[-4000:]))
        return proc.stdout if capture else proc.returncode

    def timed_bazel(self, *args):
        t0 = time.monotonic()
        self.bazel(*args)
        return time.monotonic() - t0

    def flags(self, shape, archs, staged, disk_cache=None, exec_log=None):
        f = [
            "--noshow_progress", "--ui_event_filters=-info,-warning,-stdout,-stderr", "--symlink_prefix=/",
            "--override_module=rules_cuda_stages_bench=" + self.shape_dir(shape),
            "--jobs=%d" % self.jobs, "--output_groups=cuda_objects",
            "--//cuda_rules:archs=" + archs, "--//cuda_rules:staged=" + ("true" if staged else "false"),
            "--//cuda_rules:shipped_archs=" + self.opts.archs,
        ]
        if disk_cache:
            f.append("--disk_cache=" + disk_cache)
        if exec_log:
            f.append("--execution_log_binary_file=" + exec_log)
        return f

    def heap_mb(self):
        return scaling_lib.parse_heap_mb(self.bazel("info", "used-heap-size-after-gc", capture=True))

    def server_cpu(self):
        return lib.process_cpu(self.server_pid)

    def measured_build(self, flags):
        """A timed build; returns (wall, CPU of the server's children, the server's own CPU)."""
        own0, children0 = self.server_cpu()
        wall = self.timed_bazel("build", *flags, *TARGETS)
        own1, children1 = self.server_cpu()
        if int(self.bazel("info", "server_pid", capture=True).strip()) != self.server_pid:
            raise SystemExit("bench/run scaling: the Bazel server restarted during a build; its CPU time is lost")
        return wall, children1 - children0, own1 - own0

    def tool(self, target, *args):
        """stdout of `bazel run TARGET -- ARGS` in the checkout's own output base."""
        proc = subprocess.run([BAZELW, "run", "--noshow_progress", "--ui_event_filters=-info,-warning", target, "--",
                               *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise SystemExit("bench/run scaling: %s failed:\n%s" % (target, proc.stderr[-4000:]))
        return proc.stdout

    def stages_of(self, exec_log):
        rows = json.loads(self.tool("//tools/cache_report", exec_log, "--format=json", "--all_mnemonics"))
        return scaling_lib.stage_totals(rows)

    # --- the variants -----------------------------------------------------------------------
    def base_run(self, case, variant, scenario, rep):
        return {"shape": case.shape.name, "sources": case.shape.sources, "targets": case.shape.targets,
                "archs": self.archs(case), "variant": variant, "scenario": scenario, "rep": rep}

    def bazel_variant(self, case, token, rep):
        variant, scenario, staged = scaling_lib.BAZEL_VARIANTS[token]
        logged = scenario == "cold"
        archs = self.archs(case)
        run = self.base_run(case, variant, scenario, rep)
        self.bazel("clean")
        self.bazel("shutdown")
        # Loading + analysis in a fresh server: its time (the profile's phase
        # markers; the wall includes the server's start) and the heap it leaves.
        profile = os.path.join(self.scratch, "analysis.profile.json.gz")
        run["analysis_wall_s"] = round(self.timed_bazel("build", "--nobuild", "--profile=" + profile,
                                                        *self.flags(case.shape, archs, staged), *TARGETS), 3)
        with gzip.open(profile, "rt") as f:
            run["analysis_s"] = scaling_lib.analysis_s(json.load(f))
        run["heap_analysis_mb"] = self.heap_mb()
        self.server_pid = int(self.bazel("info", "server_pid", capture=True).strip())
        cache = os.path.join(self.scratch, "disk_cache")
        shutil.rmtree(cache, ignore_errors=True)
        keep = case.scaleout and rep == 1 and token in ("staged", "unstaged")
        exec_log = None
        if logged:
            exec_log = os.path.join(self.logs_dir if keep else self.scratch,
                                    "%s.%sarch.%s.rep%d.log" % (case.shape.name, case.archs_key, token, rep))
        run["load_before"] = loadavg()
        wall, cpu_actions, cpu_server = self.measured_build(self.flags(case.shape, archs, staged, cache, exec_log))
        run.update({"wall_s": round(wall, 3), "cpu_actions_s": round(cpu_actions, 2), "cpu_server_s": round(cpu_server, 2),
                    "cpu_s": round(cpu_actions + cpu_server, 2), "load_after": loadavg()})
        run["heap_build_mb"] = self.heap_mb()
        if logged:
            run["log_mb"] = round(os.path.getsize(exec_log) / 1e6, 1)  # MB of 10^6 bytes, as the heap
            run["stages"] = self.stages_of(exec_log)
            plain = self.flags(case.shape, archs, staged, cache)
            run["null_s"] = [round(self.timed_bazel("build", *plain, *TARGETS), 3) for _ in range(NULL_BUILDS)]
            run["edit"] = self.edit(case, archs, staged, cache)
            if keep:
                self.kept_logs[token] = exec_log
            else:
                os.remove(exec_log)
        shutil.rmtree(cache, ignore_errors=True)
        run["time"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.record(run)

    def edit(self, case, archs, staged, cache):
        """The one-file edit (k0000.cu's device code) built incrementally, and what ran."""
        path = os.path.join(self.shape_dir(case.shape), EDITED_SOURCE + ".cu")
        with open(path) as f:
            original = f.read()
        edit_log = os.path.join(self.scratch, "edit.log")
        with open(path, "w") as f:
            f.write(scaling_gen.edit_source(original))
        try:
            wall, cpu_actions, cpu_server = self.measured_build(self.flags(case.shape, archs, staged, cache, edit_log))
        finally:
            with open(path, "w") as f:
                f.write(original)
        stages = self.stages_of(edit_log)
        os.remove(edit_log)
        return {"wall_s": round(wall, 3), "cpu_actions_s": round(cpu_actions, 2), "cpu_server_s": round(cpu_server, 2),
                "stages": stages}

    def nvcc_variant(self, case, token, rep):
        out = os.path.join(self.scratch, "nvcc_runs.json")
        load = loadavg()
        # bazel run: the same nvcc (the toolkit's runfiles) and host compiler
        # (tools/bazelw's root) as the Bazel builds.
        self.tool("//bench/compile_bench:nvcc_runs", "--variants=" + token, "--scopes=corpus", "--reps=1",
                  "--archs=" + self.archs(case), "--jobs=%d" % self.jobs,
                  "--corpus_bzl=" + os.path.join(self.shape_dir(case.shape), "corpus.bzl"), "--out=" + out,
                  "--workdir=" + os.path.join(self.scratch, "nvcc_work"))
        with open(out) as f:
            got = json.load(f)
        self.doc["machine"].setdefault("nvcc_tools", got["tools"])
        for r in got["runs"]:
            if not r["ok"] or len(r["files"]) != case.shape.sources:
                raise SystemExit("bench/run scaling: %s of %s failed" % (token, case.shape.name))
            run = self.base_run(case, token, "cold", rep)
            run.update({"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "jobs": r["jobs"], "load_before": load,
                        "load_after": r["load_after"], "time": r["time"]})
            self.record(run)

    def record(self, run):
        self.doc["runs"].append(run)
        self.save()
        extra = ""
        if "analysis_s" in run:
            extra = "  analysis %s s  heap %s/%s MB" % (run["analysis_s"], run["heap_analysis_mb"], run["heap_build_mb"])
        if run.get("null_s"):
            extra += "  null %.2f s  edit %.1f s" % (lib.median(run["null_s"]), run["edit"]["wall_s"])
        log("rep %d %-8s %-6s %-15s %-11s wall %7.1f s  cpu %7.1f s%s  load %.1f" % (
            run["rep"], run["shape"], scaling_lib.archs_label(run["archs"]), run["variant"], run["scenario"],
            run["wall_s"], lib.metric(run, "cpu_actions_s"), extra, run["load_before"] or 0))

    def save(self):
        os.makedirs(self.opts.out, exist_ok=True)
        tmp = self.results_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.doc, f, indent=1, sort_keys=True)
        os.replace(tmp, self.results_path)

    def scaleout(self, case):
        names = ["staged", "staged=false"]
        logs = [self.kept_logs["staged"], self.kept_logs["unstaged"]]
        log("scaleout on %s" % ", ".join(logs))
        curves = json.loads(self.tool("//tools/cache_report:scaleout", *logs, "--names=" + ",".join(names), "--format=json"))
        self.doc["scaleout"] = {"shape": case.shape.name, "archs": self.archs(case), "logs": logs, "curves": curves}
        self.save()

    def run(self):
        self.prepare()
        for case in self.cases:
            log("== %s (%s)" % (case.spec, self.archs(case)))
            self.kept_logs = {}
            for rep in range(1, case.reps + 1):
                for token in scaling_lib.rep_order(case.variants, rep):
                    if token in scaling_lib.BAZEL_VARIANTS:
                        self.bazel_variant(case, token, rep)
                    else:
                        self.nvcc_variant(case, token, rep)
            if case.scaleout:
                self.scaleout(case)
        self.doc["machine"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.doc["machine"]["uptime_end"] = subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip()
        self.save()
        self.bazel("shutdown")
        log("results: %s" % self.results_path)


def results_path(opts):
    return os.path.join(opts.out, "results-scaling-%s.json" % opts.name)


def report(opts):
    """Tables (markdown, printed and written) and plots from the saved results."""
    with open(results_path(opts)) as f:
        doc = json.load(f)
    corpus = None
    corpus_path = opts.corpus_results or os.path.join(opts.out, "results-%s.json" % opts.name)
    if os.path.exists(corpus_path):
        with open(corpus_path) as f:
            corpus = json.load(f)
    text = scaling_lib.tables(doc, opts.archs, opts.dev_archs, corpus)
    with open(os.path.join(opts.out, "tables-scaling-%s.md" % opts.name), "w") as f:
        f.write(text)
    print(text)
    from bench.compile_bench import compile_bench

    python = compile_bench.ensure_matplotlib()
    if python:
        subprocess.run([python, os.path.join(REPO, "bench", "compile_bench", "scaling_plots.py"), results_path(opts),
                        "--out=" + opts.out, "--name=" + opts.name, "--archs=" + opts.archs,
                        "--dev_archs=" + opts.dev_archs], check=True, env=dict(os.environ, PYTHONPATH=REPO))


def main(argv=None):
    p = argparse.ArgumentParser(prog="bench/run scaling", description=__doc__.split("\n")[0])
    p.add_argument("--preset", default="full", choices=sorted(scaling_lib.PRESETS),
                   help="which cases (%s)" % "; ".join("%s: %s" % (k, " ".join(v)) for k, v in sorted(scaling_lib.PRESETS.items())))
    p.add_argument("--cases", default="", help="SHAPE/ARCHS/REPS/VARIANTS,... instead of a preset")
    p.add_argument("--archs", default=nvcc_runs.DEFAULT_ARCHS, help="the 4-arch builds' archs (and the shipped set)")
    p.add_argument("--dev_archs", default="sm_90", help="the 1-arch builds' archs")
    p.add_argument("--jobs", type=int, default=0, help="Bazel --jobs and files at a time for nvcc (default: cores)")
    p.add_argument("--out", default=os.path.join(REPO, "docs", "performance"))
    p.add_argument("--name", default="%dcore" % os.cpu_count(), help="results-scaling-<name>.json, tables-scaling-<name>.md")
    p.add_argument("--logs_dir", default="", help="where the scaleout case's execution logs are kept "
                   "(default: rules_cuda_stages_scaling_logs/<name> beside Bazel's output bases)")
    p.add_argument("--append", action="store_true", help="add to the results file instead of starting a new one")
    p.add_argument("--corpus_results", default="", help="bench/run's results, for the corpus target "
                   "(default: <out>/results-<name>.json if it exists)")
    p.add_argument("--dry_run", action="store_true", help="print the cases, their estimated time and disk, and stop")
    p.add_argument("--report_only", action="store_true", help="only tables and plots from saved results")
    opts = p.parse_args(argv)
    try:
        cases = scaling_lib.parse_cases(opts.cases or opts.preset)
    except scaling_lib.CaseError as e:
        p.error(str(e))
    if opts.dry_run:
        print("bench/run scaling: %d cases\n%s" % (len(cases), scaling_lib.plan_text(cases)))
        return 0
    if not opts.report_only:
        log("cases:\n%s" % scaling_lib.plan_text(cases))
        ScalingBench(opts, cases).run()
    report(opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
