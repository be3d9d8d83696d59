"""Compiles the benchmark corpus without Bazel: nvcc per file, nvcc -t 0, or the staged runner.

Standard library only (Python >= 3.8), so it runs as is on machines without
Bazel (the GPU machine) and, through `bazel run //bench/compile_bench:nvcc_runs`,
inside tools/bazelw's root with the same nvcc and host compiler as the Bazel
builds.

  python3 bench/compile_bench/nvcc_runs.py --nvcc=/usr/local/cuda/bin/nvcc \
      --variants=nvcc,nvcc_t0,runner --scopes=corpus,file --reps=3 --out=runs.json

Variants (each compiles every corpus source to an object, same options as
bench/corpus/corpus.bzl, -Xcompiler=-fPIC like cuda_library):
  nvcc      one `nvcc -c` per file, --jobs files at a time
  nvcc_t0   the same with `-t 0` (nvcc runs its per-arch steps in parallel)
  runner    `nvcc_plan.py --run -j <threads>` per file (the staged runner)
  nvcc_t0_split0  nvcc's fastest mode: `-t 0 --split-compile=0` (with --time_dir, its
            `--time` CSV per file: bench/compile_bench/split_report.py's floors)
  runner_split    the runner with `--split-compile=<--runner_split>` (split compilation
            inside its cicc and ptxas, counted against its -j)
Scopes:
  corpus    all files, --jobs at a time (like make -j / xargs -P)
  file      one file at a time, alone on the machine
Runs are alternated (variant order reversed every other repetition) and
repeated; every run starts from an empty output directory (nothing is cached).
The default runner's Python modules (this checkout's tools/nvcc_plan, absl-py,
bazel-runfiles) are byte-compiled first, as an installed tool's are: where
PYTHONDONTWRITEBYTECODE is set (the lent GPU machine sets it) Python would
otherwise compile them from source in every run, ~0.06 s of each (2026-12-03).
CPU time is the user + system time of the finished child processes and their
waited-for descendants (os.wait4), i.e. everything nvcc and the runner ran.
"""

import argparse
import ast
import compileall
import concurrent.futures
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_ARCHS = "sm_75,sm_80,sm_86,sm_90,compute_90"


def read_corpus(path):
    """CORPUS from bench/corpus/corpus.bzl (a plain literal): {name: {"kind": ..., "copts": [...]}}."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CORPUS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError("%s defines no CORPUS" % path)


def gencode_flags(archs):
    """-gencode flags for "sm_80,sm_90,compute_90" as cuda_library spells them (one per virtual arch)."""
    virtuals = {}
    for arch in [a.strip() for a in archs.split(",") if a.strip()]:
        m = re.match(r"^(sm|compute)_([0-9]+[af]?)$", arch)
        if not m:
            raise ValueError("not an arch: %r" % arch)
        codes = virtuals.setdefault("compute_" + m.group(2), [])
        codes.append(arch)

    def order(arch):
        return arch.startswith("compute_")  # cubins first, then the PTX, as cuda_library does

    def number(virtual):
        return int(re.match(r"compute_([0-9]+)", virtual).group(1))

    return [
        "-gencode=arch=%s,code=[%s]" % (v, ",".join(sorted(codes, key=order)))
        for v, codes in sorted(virtuals.items(), key=lambda kv: number(kv[0]))
    ]


def read_sources(path, root=None):
    """A list of other sources (--sources): {name: {"src": path, "copts": [...]}}.

    One source per line, `PATH [nvcc options...]`, paths (of the source and of
    -I/-isystem directories) relative to `root` (default: the list's
    directory); `#` comments. The name is the path without its extension,
    slashes as underscores.
    """
    base = os.path.abspath(root) if root else os.path.dirname(os.path.abspath(path))
    out = {}
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            copts, i = [], 1
            while i < len(words):
                if words[i] in ("-I", "-isystem") and i + 1 < len(words):
                    copts += [words[i], os.path.join(base, words[i + 1])]
                    i += 2
                    continue
                copts.append(words[i])
                i += 1
            name = os.path.splitext(words[0])[0].replace("/", "_")
            out[name] = {"src": os.path.join(base, words[0]), "copts": copts, "kind": "source"}
    return out


def nvcc_args(corpus_dir, name, info, archs, ccbin):
    args = ["-ccbin", ccbin] if ccbin else []
    src = info.get("src") or os.path.join(corpus_dir, name + ".cu")
    includes = [] if "src" in info else ["-I", corpus_dir]
    return args + gencode_flags(archs) + ["-Xcompiler=-fPIC"] + list(info["copts"]) + includes + ["-c", src]


def loadavg():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def run_child(cmd, cwd, log, env=None):
    """Runs cmd; returns (wall_s, cpu_s, returncode). CPU includes waited-for descendants."""
    start = time.monotonic()
    with open(log, "ab") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


_CRITICAL = re.compile(r"critical path[^0-9]*([0-9.]+)\s*s", re.IGNORECASE)


def critical_path_s(table_text):
    """The runner's critical path in seconds from its --table output, or None."""
    m = _CRITICAL.search(table_text or "")
    return float(m.group(1)) if m else None


class Bench:
    def __init__(self, opts):
        self.opts = opts
        self.corpus = read_sources(opts.sources, opts.sources_root) if opts.sources else read_corpus(opts.corpus_bzl)
        if opts.sources and opts.add_corpus:
            self.corpus.update(read_corpus(opts.corpus_bzl))
        if opts.files:
            wanted = opts.files.split(",")
            unknown = [f for f in wanted if f not in self.corpus]
            if unknown:
                raise SystemExit("nvcc_runs: not in the corpus: %s" % ", ".join(unknown))
            self.corpus = {k: v for k, v in self.corpus.items() if k in wanted}
        self.corpus_dir = os.path.dirname(os.path.abspath(opts.corpus_bzl))

    def command(self, variant, name, out_obj, table):
        args = nvcc_args(self.corpus_dir, name, self.corpus[name], self.opts.archs, self.opts.ccbin) + ["-o", out_obj]
        if variant == "nvcc":
            return [self.opts.nvcc] + args
        if variant == "nvcc_t0":
            return [self.opts.nvcc, "-t", "0"] + args
        if variant == "nvcc_t0_split0":
            # Files alone only (the corpus scope's phases contend with other files'): each run appends its rows.
            alone = self.opts.time_dir and self.scope == "file"
            time_csv = ["--time", os.path.join(self.opts.time_dir, name + ".csv")] if alone else []
            return [self.opts.nvcc, "-t", "0", "--split-compile=0"] + time_csv + args
        if variant in ("runner", "runner_split"):
            runner = self.opts.runner.split() + ["--nvcc=" + self.opts.nvcc, "-j", str(self.opts.runner_jobs)]
            split = ["--split-compile=%d" % self.opts.runner_split] if variant == "runner_split" else []
            return runner + ["--table=" + table, "--"] + args + split
        raise ValueError(variant)

    def compile_one(self, variant, name, workdir):
        obj = os.path.join(workdir, name + ".o")
        table = os.path.join(workdir, name + ".table.txt")
        wall, cpu, rc = run_child(self.command(variant, name, obj, table), workdir, os.path.join(workdir, name + ".log"))
        rec = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "ok": rc == 0 and os.path.exists(obj)}
        if variant.startswith("runner"):
            # The runner's summary line (stderr, in the log): "..., critical path 9.02 s: plan -> ...".
            with open(os.path.join(workdir, name + ".log"), errors="replace") as f:
                text = f.read()
            rec["critical_path_s"] = critical_path_s(text)
            if os.path.exists(table):
                # Each stage's start and end (the runner's --table CSV): where the time went.
                with open(table, errors="replace") as f:
                    rec["stages"] = [line.rstrip("\n").split(",") for line in f if line.strip()][1:]
            path = re.search(r"critical path [0-9.]+ s: (.*)", text)
            if path:
                rec["critical_path"] = path.group(1).strip()
        if not rec["ok"]:
            with open(os.path.join(workdir, name + ".log"), errors="replace") as f:
                rec["log_tail"] = f.read()[-2000:]
        return rec

    def run(self, variant, scope, rep, only=None):
        """One run: the whole corpus (--jobs at a time) or one file alone."""
        self.scope = scope
        workdir = tempfile.mkdtemp(prefix="%s.%s." % (variant, only or scope), dir=self.opts.workdir)
        names = [only] if only else list(self.corpus)
        load_before = loadavg()
        start = time.monotonic()
        jobs = 1 if only else self.opts.jobs
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            results = dict(zip(names, pool.map(lambda n: self.compile_one(variant, n, workdir), names)))
        wall = time.monotonic() - start
        shutil.rmtree(workdir, ignore_errors=True)
        return {
            "variant": variant,
            "scope": scope,
            "file": only,
            "archs": self.opts.archs,
            "rep": rep,
            "jobs": jobs,
            "runner_jobs": self.opts.runner_jobs if variant.startswith("runner") else None,
            "runner_split": self.opts.runner_split if variant == "runner_split" else None,
            "wall_s": round(wall, 3),
            "cpu_s": round(sum(r["cpu_s"] for r in results.values()), 3),
            "ok": all(r["ok"] for r in results.values()),
            "files": results,
            "load_before": load_before,
            "load_after": loadavg(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }


def tool_versions(nvcc, ccbin):
    def first_line(cmd):
        try:
            out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False).stdout
            lines = out.decode(errors="replace").strip().splitlines()
            return lines[-2] if "nvcc" in cmd[0] and len(lines) >= 2 else (lines[0] if lines else "")
        except OSError as e:
            return "unavailable: %s" % e

    return {
        "nvcc": first_line([nvcc, "--version"]),
        "host_compiler": first_line([ccbin or "gcc", "--version"]),
        "host_compiler_path": shutil.which(ccbin or "gcc"),
        "cores": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "machine": platform.node(),
    }


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _runfiles_root():
    root = os.environ.get("RUNFILES_DIR") or ""
    here = os.path.abspath(__file__)
    while not root and os.path.dirname(here) != here:
        here = os.path.dirname(here)
        if here.endswith(".runfiles"):
            root = here
    return root if root and os.path.isdir(root) else ""


def _default_runner():
    # Under `bazel run`: the nvcc_plan py_binary from the runfiles (it brings absl-py).
    root = _runfiles_root()
    launcher = os.path.join(root, "_main", "tools", "nvcc_plan", "nvcc_plan") if root else ""
    if launcher and os.access(launcher, os.X_OK):
        return launcher + " --run"
    return "%s %s --run" % (sys.executable, _runner_script())


def _runner_script():
    return os.path.join(REPO, "tools", "nvcc_plan", "nvcc_plan.py")


def byte_compile_runner(runner):
    """Byte-compiles the modules the default runner imports; returns the directories compiled.

    Only for `<this Python> <this checkout>/tools/nvcc_plan/nvcc_plan.py` (the default outside Bazel):
    another runner command is used as given. A directory that cannot be written is left as it is.
    """
    script = _runner_script()
    if not runner.startswith("%s %s " % (sys.executable, script)):
        return []
    dirs = [os.path.dirname(script)]
    for module in ("absl", "runfiles"):
        spec = importlib.util.find_spec(module)
        if spec and spec.submodule_search_locations:
            dirs += list(spec.submodule_search_locations)
    # This interpreter is the runner's: the .pyc files it writes are the ones the runner reads.
    return [d for d in dirs if compileall.compile_dir(d, quiet=2)]


def _default_nvcc():
    # Under `bazel run`, //cuda_rules:toolkit_files puts the selected toolkit's bin/nvcc in the runfiles.
    root = _runfiles_root()
    if root:
        for repo in sorted(os.listdir(root)):
            path = os.path.join(root, repo, "bin", "nvcc")
            if os.path.exists(path) and os.path.exists(os.path.join(root, repo, "bin", "nvcc.profile")):
                return path
    return shutil.which("nvcc")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nvcc", help="nvcc to run (default: the toolkit in the runfiles, else nvcc on PATH)")
    p.add_argument("--ccbin", default=shutil.which("gcc"), help="host compiler (default: gcc on PATH)")
    # Under `bazel run` the corpus is read from the workspace.
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or REPO
    p.add_argument("--corpus_bzl", default=os.path.join(root, "bench", "corpus", "corpus.bzl"))
    p.add_argument("--sources", default="", help="other sources instead of the corpus: a list file (read_sources)")
    p.add_argument("--sources_root", default="", help="where --sources' paths start (default: the list's directory)")
    p.add_argument("--add_corpus", action="store_true", help="with --sources: the corpus (corpus.bzl) too")
    p.add_argument("--files", default="", help="comma-separated subset of the corpus")
    p.add_argument("--runner_split", type=int, default=4, help="--split-compile of the runner_split variant")
    p.add_argument("--time_dir", default="", help="the nvcc_t0_split0 variant's `nvcc --time` CSVs, one per file")
    p.add_argument("--archs", default=DEFAULT_ARCHS)
    p.add_argument("--variants", default="nvcc,nvcc_t0")
    p.add_argument("--scopes", default="corpus", help="corpus, file, or both")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--jobs", type=int, default=os.cpu_count(), help="files at a time in the corpus scope")
    p.add_argument("--runner", default=_default_runner(), help="the runner's command (default: nvcc_plan.py --run)")
    p.add_argument("--runner_jobs", type=int, default=os.cpu_count(), help="-j of the runner")
    p.add_argument("--workdir", default=None, help="scratch directory (default: a temporary one)")
    p.add_argument("--out", required=True, help="JSON file; rewritten after every run")
    p.add_argument("--budget_s", type=float, default=0, help="stop starting runs after this many seconds (0: no limit)")
    opts = p.parse_args(argv)
    opts.nvcc = opts.nvcc or _default_nvcc()
    if not opts.nvcc:
        p.error("no nvcc: pass --nvcc")
    opts.workdir = opts.workdir or tempfile.mkdtemp(prefix="nvcc_runs.")
    if opts.time_dir:
        os.makedirs(opts.time_dir, exist_ok=True)
    os.makedirs(opts.workdir, exist_ok=True)
    bench = Bench(opts)
    variants = opts.variants.split(",")
    scopes = opts.scopes.split(",")
    doc = {"tools": tool_versions(opts.nvcc, opts.ccbin), "archs": opts.archs, "jobs": opts.jobs, "runs": []}
    if any(v.startswith("runner") for v in variants):
        doc["runner_byte_compiled"] = byte_compile_runner(opts.runner)
    begin = time.monotonic()

    def save():
        tmp = opts.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
        os.replace(tmp, opts.out)

    save()
    for rep in range(1, opts.reps + 1):
        order = variants if rep % 2 else list(reversed(variants))
        plan = []
        for scope in scopes:
            if scope == "corpus":
                plan += [(v, "corpus", None) for v in order]
            else:
                plan += [(v, "file", name) for name in bench.corpus for v in order]
        for variant, scope, only in plan:
            if opts.budget_s and time.monotonic() - begin > opts.budget_s:
                doc["stopped"] = "budget of %.0f s reached before rep %d %s %s %s" % (opts.budget_s, rep, variant, scope, only or "")
                save()
                print("nvcc_runs: " + doc["stopped"], file=sys.stderr)
                return 0
            rec = bench.run(variant, scope, rep, only)
            doc["runs"].append(rec)
            save()
            paths = [f.get("critical_path") for f in rec.get("files", {}).values() if f.get("critical_path")]
            print("rep %d %-8s %-6s %-12s wall %7.2f s  cpu %7.2f s  %s%s" % (
                rep, variant, scope, only or "", rec["wall_s"], rec["cpu_s"], "ok" if rec["ok"] else "FAILED",
                "  critical path: " + paths[0] if len(paths) == 1 else ""),
                file=sys.stderr, flush=True)
            if not rec["ok"]:
                for name, r in rec["files"].items():
                    if not r["ok"]:
                        print("--- %s failed:\n%s" % (name, r.get("log_tail", "")), file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
