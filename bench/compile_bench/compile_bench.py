"""bench/run: cold builds of the benchmark corpus, staged vs one nvcc per file, and reuse scenarios.

  bench/run [--reps=3] [--archs=sm_75,sm_80,sm_86,sm_90,compute_90] [--dev_archs=sm_90]
              [--blocks=...] [--files=a,b] [--out=docs/performance] [--name=2core]
  bench/run --report_only [--gpu_results=docs/performance/results-gpu16.json]

Every repetition runs these blocks, alternating (reversed every other
repetition), each build cold (bazel clean, a fresh --disk_cache):
  staged4    Bazel, staged, 4 archs; then a host-only edit of every .cu built
             incrementally (which stages re-run? every CudaPtxas should be an
             action-cache hit); then bazel clean and a --dev_archs build against
             the first build's disk cache (the CI -> developer scenario, in the
             default configuration: --archs is the shipped set, so the
             developer's subset gets its __CUDA_ARCH_LIST__)
  unstaged4  Bazel, staged=false (one CudaCompile = one nvcc per file), 4 archs;
             the same host-only edit, built incrementally
  nvcc4      nvcc per file, nvcc -t 0 per file and the staged runner
             (tools/nvcc_plan/nvcc_plan.py --run -j <cores>) per file, --jobs
             files at a time
  staged1, unstaged1, nvcc1   the same for --dev_archs only
  pincost    what pinning __CUDA_ARCH_LIST__ costs: cold --dev_archs builds of the
             CCCL files only, with the shipped set's list (the default for a
             subset) and with the compiled arch's own (shipped set = --dev_archs),
             alternating
  split4     Bazel, staged, 4 archs, without an execution log, with split
             compilation (--//cuda_rules:split_compile=<--split>): beside nolog,
             what the setting costs or gains on this machine
  nolog      Bazel, staged, 4 archs, without an execution log (what writing the
             log, which every other Bazel build does, costs)
  gcc10      Bazel, staged, 4 archs, without an execution log, with the hermetic
             host toolchain (--//cuda_rules:host_toolchain=gcc10): beside nolog,
             what it costs against the machine's compiler (its fetch happens in
             the untimed analysis pass)

Bazel runs with --jobs = cores, its own output base and no convenience
symlinks; each timed Bazel build follows an untimed --nobuild pass with the
same flags (its analysis), and --//cuda_rules:shipped_archs = --archs (CI's archs are the
shipped set) unless a block says otherwise. CPU time of a Bazel build = the change of the Bazel server's
/proc/<pid>/stat over the build: cutime + cstime (every action: the sandbox
waits for the tool, the server for the sandbox) and, separately, utime + stime
(the server itself: analysis, sandbox set-up, hashing, cache writes). CPU time
of the plain nvcc runs = the rusage of the finished child processes.

Results go to <out>/results-<name>.json (every run, raw), tables to
<out>/tables-<name>.md and plots (matplotlib, from a venv under ~/.cache) to
<out>/*.png.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from tools.cache_report import cache_report_lib  # noqa: E402
from bench.compile_bench import compile_bench_lib as lib  # noqa: E402
from bench.compile_bench import nvcc_runs  # noqa: E402

BAZELW = os.path.join(REPO, "tools", "bazelw")
TARGETS = ["@rules_cuda_stages_bench//:all"]
ALL_BLOCKS = ["staged4", "unstaged4", "nvcc4", "staged1", "unstaged1", "nvcc1", "pincost", "nolog"]
# Not in a default run: bench/run --blocks=nolog,split4 (or nolog,gcc10).
OTHER_BLOCKS = ["split4", "gcc10"]
EDIT_MARK = "// bench/run: a host-only edit above everything (shifts every line).\n"
EDIT = EDIT_MARK + "static int compile_bench_host_only_edit() { return 42; }\n"


def log(msg):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def loadavg():
    return round(os.getloadavg()[0], 2)


class Bench:
    def __init__(self, opts):
        self.opts = opts
        self.jobs = opts.jobs or os.cpu_count()
        self.scratch = os.path.join(lib.bazel_user_root(BAZELW, REPO), "rules_cuda_stages_compile_bench")
        self.output_base = os.path.join(self.scratch, "output_base")
        self.corpus = os.path.join(self.scratch, "corpus")
        self.results_path = os.path.join(opts.out, "results-%s.json" % opts.name)
        self.doc = {"machine": {}, "runs": []}
        self.server_pid = None

    # --- setup -------------------------------------------------------------
    def prepare(self):
        if os.path.isdir(self.output_base):
            subprocess.run(self.bazel_cmd("shutdown"), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.scratch, ignore_errors=True)
        os.makedirs(self.scratch)
        # The corpus module is built from a copy (--override_module), so the
        # host-only edit never touches the checkout.
        shutil.copytree(os.path.join(REPO, "bench", "corpus"), self.corpus, ignore=shutil.ignore_patterns("bazel-*"))
        if self.opts.files:
            self.restrict_corpus(self.opts.files.split(","))
        self.corpus_def = nvcc_runs.read_corpus(os.path.join(self.corpus, "corpus.bzl"))
        self.sources = {name: open(os.path.join(self.corpus, name + ".cu")).read() for name in self.corpus_def}
        log("scratch: %s" % self.scratch)
        log("warming up: repositories, the server, one untimed build")
        self.bazel("build", "--nobuild", *self.flags(self.opts.archs, True), *TARGETS)
        self.bazel("build", *self.flags(self.opts.dev_archs, True), *TARGETS)
        self.bazel("clean")
        self.server_pid = int(self.bazel("info", "server_pid", capture=True).strip())
        self.doc["machine"] = {
            "cores": os.cpu_count(),
            "jobs": self.jobs,
            "cpu_model": nvcc_runs._cpu_model(),
            "archs": self.opts.archs,
            "dev_archs": self.opts.dev_archs,
            "files": list(self.corpus_def),
            "bazel": self.bazel("version", capture=True).strip().splitlines()[0],
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "uptime": subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip(),
        }

    def restrict_corpus(self, names):
        path = os.path.join(self.corpus, "corpus.bzl")
        corpus = nvcc_runs.read_corpus(path)
        unknown = [n for n in names if n not in corpus]
        if unknown:
            raise SystemExit("bench/run: not in the corpus: %s" % ", ".join(unknown))
        # A Python literal of strings, lists and dicts is Starlark too.
        with open(path, "w") as f:
            f.write('"""bench/run --files: a subset of the corpus."""\n\nCORPUS = %r\n' % {n: corpus[n] for n in names})

    # --- Bazel ---------------------------------------------------------------
    def bazel_cmd(self, *args):
        return [BAZELW, "--output_base=" + self.output_base, *args]

    def bazel(self, *args, capture=False, check=True):
        proc = subprocess.run(self.bazel_cmd(*args), cwd=REPO, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if check and proc.returncode != 0:
            raise SystemExit("bench/run: `bazel %s` failed:\n%s" % (" ".join(args), proc.stderr[-4000:]))
        return proc.stdout if capture else proc.returncode

    def flags(self, archs, staged, disk_cache=None, exec_log=None, shipped=None):
        f = [
            "--noshow_progress", "--ui_event_filters=-info,-warning,-stdout,-stderr", "--symlink_prefix=/",
            "--override_module=rules_cuda_stages_bench=" + self.corpus,
            "--jobs=%d" % self.jobs, "--output_groups=cuda_objects",
            "--//cuda_rules:archs=" + archs, "--//cuda_rules:staged=" + ("true" if staged else "false"),
            "--//cuda_rules:shipped_archs=" + (shipped or self.opts.archs),
        ]
        if disk_cache:
            f.append("--disk_cache=" + disk_cache)
        if exec_log:
            f += ["--execution_log_json_file=" + exec_log, "--noexecution_log_sort"]
        return f

    def server_cpu(self):
        return lib.process_cpu(self.server_pid)

    def timed_build(self, rep, variant, scenario, archs, staged, cache, shipped=None, exec_log=True, targets=TARGETS, extra=()):
        exec_log = exec_log and os.path.join(self.scratch, "%s.%s.%s.%d.json" % (variant, scenario, archs.count(",") + 1, rep))
        # Analysis first, untimed: the flags change between builds (archs,
        # staged), which discards Bazel's analysis cache; every timed build then
        # starts from the same state and measures what the build executes.
        self.bazel("build", "--nobuild", *self.flags(archs, staged, cache, None, shipped), *extra, *targets)
        load = loadavg()
        own0, children0 = self.server_cpu()
        t0 = time.monotonic()
        self.bazel("build", *self.flags(archs, staged, cache, exec_log, shipped), *extra, *targets)
        wall = time.monotonic() - t0
        own1, children1 = self.server_cpu()
        pid = int(self.bazel("info", "server_pid", capture=True).strip())
        if pid != self.server_pid:
            raise SystemExit("bench/run: the Bazel server restarted during a build; its CPU time is lost")
        spawns = cache_report_lib.read_json_log(exec_log) if exec_log else []
        run = {
            "variant": variant, "scenario": scenario, "archs": archs, "scope": "corpus", "file": None, "rep": rep,
            "wall_s": round(wall, 3),
            "cpu_actions_s": round(children1 - children0, 2),
            "cpu_server_s": round(own1 - own0, 2),
            "cpu_s": round(children1 - children0 + own1 - own0, 2),
            "load_before": load, "load_after": loadavg(),
            "stages": lib.stage_totals(spawns),
            "per_file": self.per_file_stage_time(spawns),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        self.record(run)
        return run, spawns, exec_log

    @staticmethod
    def per_file_stage_time(spawns):
        out = {}
        for s in spawns:
            if s.mnemonic.startswith("Cuda") and not s.cache_hit:
                row = out.setdefault(lib.target_name(s.target), {})
                row[s.mnemonic] = round(row.get(s.mnemonic, 0.0) + s.wall_s, 3)
        return out

    def record(self, run):
        self.doc["runs"].append(run)
        self.save()
        cpu = run.get("cpu_actions_s", run.get("cpu_s"))
        log("rep %d %-16s %-7s %-40s wall %7.1f s  cpu %7.1f s%s  load %.1f" % (
            run["rep"], run["variant"], run.get("scenario", "cold"), run["archs"], run["wall_s"], cpu,
            "  server %.1f s" % run["cpu_server_s"] if "cpu_server_s" in run else "", run["load_before"] or 0))

    def save(self):
        os.makedirs(self.opts.out, exist_ok=True)
        tmp = self.results_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.doc, f, indent=1, sort_keys=True)
        os.replace(tmp, self.results_path)

    # --- scenarios -------------------------------------------------------------
    def fresh_cache(self, name):
        path = os.path.join(self.scratch, "cache." + name)
        shutil.rmtree(path, ignore_errors=True)
        return path

    def edit_sources(self, edited):
        for name, text in self.sources.items():
            with open(os.path.join(self.corpus, name + ".cu"), "w") as f:
                f.write(EDIT + text if edited else text)

    def edit_scenario(self, rep, variant, staged, cold_spawns):
        """The host-only edit of every .cu, built incrementally after the cold build."""
        self.edit_sources(True)
        try:
            run, spawns, exec_log = self.timed_build(rep, variant, "edit", self.opts.archs, staged, None)
        finally:
            self.edit_sources(False)
        total = lib.stage_totals(cold_spawns)
        run["reuse"] = {
            m: {"actions": total.get(m, {}).get("executed", 0), "rerun": run["stages"].get(m, {}).get("executed", 0)}
            for m in sorted(total)
        }
        self.save()
        os.remove(exec_log)

    def block_staged(self, rep, archs, four):
        variant = "bazel_staged"
        self.bazel("clean")
        cache = self.fresh_cache("staged")
        run, ci_spawns, ci_log = self.timed_build(rep, variant, "cold", archs, True, cache)
        if not four:
            os.remove(ci_log)
            shutil.rmtree(cache, ignore_errors=True)
            return
        if "edit" not in self.opts.skip:
            self.edit_scenario(rep, variant, True, ci_spawns)
        self.bazel("clean")
        dev, dev_spawns, dev_log = self.timed_build(rep, variant, "ci_dev", self.opts.dev_archs, True, cache)
        dev["reuse"] = self.reuse(ci_spawns, dev_spawns)
        self.save()
        for p in (ci_log, dev_log):
            os.remove(p)
        shutil.rmtree(cache, ignore_errors=True)

    def block_pincost(self, rep):
        """Cold --dev_archs builds of the CCCL files: the shipped set's __CUDA_ARCH_LIST__ vs the arch's own."""
        targets = ["@rules_cuda_stages_bench//:" + name for name, info in self.corpus_def.items() if info["kind"] == "cccl"]
        if not targets:
            log("pincost: no CCCL file in the corpus, skipped")
            return
        order = [("cold_cccl_pinned", self.opts.archs), ("cold_cccl_own", self.opts.dev_archs)]
        for scenario, shipped in (order if rep % 2 else list(reversed(order))):
            self.bazel("clean")
            cache = self.fresh_cache("pincost")
            _, _, exec_log = self.timed_build(rep, "bazel_staged", scenario, self.opts.dev_archs, True, cache,
                                              shipped=shipped, targets=targets)
            os.remove(exec_log)
            shutil.rmtree(cache, ignore_errors=True)

    def reuse(self, ci_spawns, dev_spawns):
        """Fractions of the developer build's device-stage time served from CI's cache, per kind of code."""
        kinds = {name: info["kind"] for name, info in self.corpus_def.items()}
        groups = {
            "all": lambda k: True,
            "plain": lambda k: k == "plain",
            "non_cccl": lambda k: k != "cccl",
            "templates": lambda k: k == "templates",
            "ptxas": lambda k: k == "ptxas",
            "cccl": lambda k: k == "cccl",
        }
        out = {}
        for group, want in groups.items():
            keep = lambda spawns: [s for s in spawns if want(kinds.get(lib.target_name(s.target), ""))]
            rows = cache_report_lib.summarize(keep(dev_spawns), keep(ci_spawns))
            if not rows:
                continue
            out[group] = {
                "device_fraction": round(cache_report_lib.device_fraction_from_cache(rows), 4),
                "cicc_ptxas_fraction": lib.compile_fraction(rows),
                "device_executed_s": round(sum(r.executed_s for r in rows if r.stage in cache_report_lib.DEVICE_STAGES), 3),
                "device_saved_s": round(sum(r.saved_s for r in rows if r.stage in cache_report_lib.DEVICE_STAGES), 3),
            }
        return out

    def cold_without_log(self, rep, scenario, extra=()):
        """A cold staged build of --archs without an execution log, in a fresh disk cache."""
        self.bazel("clean")
        cache = self.fresh_cache(scenario)
        self.timed_build(rep, "bazel_staged", scenario, self.opts.archs, True, cache, exec_log=False, extra=extra)
        shutil.rmtree(cache, ignore_errors=True)

    def block_nolog(self, rep):
        self.cold_without_log(rep, "cold_nolog")

    def block_split(self, rep):
        self.cold_without_log(rep, "cold_split%d" % self.opts.split, ["--//cuda_rules:split_compile=%d" % self.opts.split])

    def block_gcc10(self, rep):
        self.cold_without_log(rep, "cold_gcc10", ["--//cuda_rules:host_toolchain=gcc10"])

    def block_unstaged(self, rep, archs, four):
        variant = "bazel_unstaged"
        self.bazel("clean")
        cache = self.fresh_cache("unstaged")
        run, cold_spawns, cold_log = self.timed_build(rep, variant, "cold", archs, False, cache)
        os.remove(cold_log)
        if four and "edit" not in self.opts.skip:
            self.edit_scenario(rep, variant, False, cold_spawns)
        shutil.rmtree(cache, ignore_errors=True)

    def block_nvcc(self, rep, archs, variants):
        order = variants if rep % 2 else list(reversed(variants))
        for variant in order:
            out = os.path.join(self.scratch, "nvcc_runs.json")
            args = [
                "--variants=" + variant, "--scopes=corpus", "--reps=1", "--archs=" + archs, "--jobs=%d" % self.jobs,
                "--corpus_bzl=" + os.path.join(self.corpus, "corpus.bzl"), "--out=" + out,
                "--workdir=" + os.path.join(self.scratch, "nvcc_work"),
            ]
            # bazel run: the same nvcc (the toolkit's runfiles) and host compiler
            # (tools/bazelw's root) as the Bazel builds.
            load = loadavg()
            proc = subprocess.run(
                [BAZELW, "run", "--noshow_progress", "--ui_event_filters=-info,-warning", "//bench/compile_bench:nvcc_runs",
                 "--", *args], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if proc.returncode != 0:
                raise SystemExit("bench/run: nvcc_runs failed:\n%s" % proc.stderr[-4000:])
            with open(out) as f:
                got = json.load(f)
            self.doc["machine"].setdefault("nvcc_tools", got["tools"])
            for run in got["runs"]:
                run["rep"] = rep
                run["scenario"] = "cold"
                run["load_before"] = load
                self.record(run)

    def run(self):
        self.prepare()
        blocks = self.opts.blocks.split(",")
        dev = self.opts.dev_archs
        nvcc_variants = ["nvcc", "nvcc_t0"] + ([] if self.opts.no_runner else ["runner"])
        actions = {
            "staged4": lambda rep: self.block_staged(rep, self.opts.archs, True),
            "unstaged4": lambda rep: self.block_unstaged(rep, self.opts.archs, True),
            "nvcc4": lambda rep: self.block_nvcc(rep, self.opts.archs, nvcc_variants),
            "staged1": lambda rep: self.block_staged(rep, dev, False),
            "unstaged1": lambda rep: self.block_unstaged(rep, dev, False),
            "nvcc1": lambda rep: self.block_nvcc(rep, dev, nvcc_variants),
            "pincost": self.block_pincost,
            "nolog": self.block_nolog,
            "split4": self.block_split,
            "gcc10": self.block_gcc10,
        }
        for rep in range(1, self.opts.reps + 1):
            order = blocks if rep % 2 else list(reversed(blocks))
            log("== repetition %d/%d: %s" % (rep, self.opts.reps, " ".join(order)))
            for block in order:
                actions[block](rep)
        self.doc["machine"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.doc["machine"]["uptime_end"] = subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip()
        self.save()
        self.bazel("shutdown")
        log("results: %s" % self.results_path)


def report(opts):
    """Tables (markdown, printed and written) and plots from the saved results."""
    from bench.compile_bench import report as report_mod

    paths = [os.path.join(opts.out, "results-%s.json" % opts.name)] + ([opts.gpu_results] if opts.gpu_results else [])
    text = report_mod.tables(paths[0], opts.archs, opts.dev_archs)
    with open(os.path.join(opts.out, "tables-%s.md" % opts.name), "w") as f:
        f.write(text)
    print(text)
    venv_python = ensure_matplotlib()
    if venv_python:
        cmd = [venv_python, os.path.join(REPO, "bench", "compile_bench", "report.py"), "--out=" + opts.out,
               "--name=" + opts.name, "--archs=" + opts.archs, "--dev_archs=" + opts.dev_archs, "--plots", paths[0]]
        if opts.gpu_results:
            cmd.append("--gpu_results=" + opts.gpu_results)
        subprocess.run(cmd, check=True, env=dict(os.environ, PYTHONPATH=REPO))


MATPLOTLIB = "matplotlib==3.10.7"


def ensure_matplotlib():
    """A python3 that can import matplotlib: this one, or a venv under ~/.cache (made once, from PyPI)."""
    try:
        import matplotlib  # noqa: F401

        return sys.executable
    except ImportError:
        pass
    venv = os.path.join(os.path.expanduser("~"), ".cache", "rules_cuda_stages_compile_bench", "venv")
    python = os.path.join(venv, "bin", "python3")
    if not os.path.exists(python):
        log("creating %s with %s (for the plots)" % (venv, MATPLOTLIB))
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        proc = subprocess.run([python, "-m", "pip", "install", "--quiet", MATPLOTLIB])
        if proc.returncode != 0:
            log("cannot install matplotlib: no plots")
            return None
    return python


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--archs", default=nvcc_runs.DEFAULT_ARCHS, help="CI's archs (the cold 4-arch builds)")
    p.add_argument("--dev_archs", default="sm_90", help="the developer's archs (1-arch builds)")
    p.add_argument("--blocks", default=",".join(ALL_BLOCKS), help="which blocks each repetition runs (also: %s)" % ",".join(OTHER_BLOCKS))
    p.add_argument("--split", type=int, default=2, help="the split4 block's --split-compile threads")
    p.add_argument("--skip", default="", help="'edit': no host-only edit scenario")
    p.add_argument("--files", default="", help="a subset of the corpus (for trying the benchmark out)")
    p.add_argument("--jobs", type=int, default=0, help="Bazel --jobs and files at a time for nvcc (default: cores)")
    p.add_argument("--no_runner", action="store_true", help="without the staged runner (tools/nvcc_plan/nvcc_plan.py --run)")
    p.add_argument("--out", default=os.path.join(REPO, "docs", "performance"))
    p.add_argument("--name", default="%dcore" % os.cpu_count(), help="results-<name>.json, tables-<name>.md")
    p.add_argument("--report_only", action="store_true", help="only tables and plots from saved results")
    p.add_argument("--gpu_results", default="", help="nvcc_runs.py results of the GPU machine, for the plots")
    opts = p.parse_args()
    if not opts.report_only:
        Bench(opts).run()
    report(opts)


if __name__ == "__main__":
    main()
