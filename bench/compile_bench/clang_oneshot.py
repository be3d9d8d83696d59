"""clang's own one-shot compiles of a staged clang build's sources: the baseline of bench/compile_bench/clang_bench.py.

For each `plan/clang_args.json` given (the driver call CudaPlan planned a
source from: the C++ toolchain's flags, the target's, `-cuid`, `-c SRC -o
OBJ`), runs that very call as one `clang -c` with the object redirected to a
scratch directory, --jobs sources at a time (as a build with one clang action
per file, rules_cuda's clang mode, runs them), in a directory laid out as the
build's actions see the execroot (scratch_execroot). Nothing is cached: every object is new.

Runs through `bazel run //bench/compile_bench:clang_oneshot` so the clang
(tools/bazelw's addon, inside its root) is the one the build ran.

Prints one JSON object: wall_s (first start to last end), cpu_s (user +
system of every clang and its children, os.wait4), per-file wall, and
whether every compile succeeded.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def oneshot_argv(call, out_obj):
    """The planned driver call as a one-shot compile writing `out_obj` (the object path replaced)."""
    args = list(call["args"])
    i = args.index("-o")
    args[i + 1] = out_obj
    return [call["clang"]] + args


def scratch_execroot(execroot, external, where):
    """A directory laid out like the execroot of a sandboxed action: the execroot's entries, and external/.

    Bazel 7 plants external repositories in each action's sandbox, not in the
    execroot itself; the plans name them as external/<repository>/...
    """
    root = os.path.join(where, "execroot")
    os.makedirs(root)
    for entry in os.listdir(execroot):
        if entry != "external":
            os.symlink(os.path.join(execroot, entry), os.path.join(root, entry))
    os.symlink(external, os.path.join(root, "external"))
    return root


def run_one(argv, cwd):
    """(wall_s, cpu_s, returncode, stderr tail) of one compile."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
                                env=dict(os.environ, PWD="/proc/self/cwd"))
        _, status, usage = os.wait4(proc.pid, 0)
        err.seek(0)
        tail = err.read()[-2000:].decode(errors="replace")
    return time.monotonic() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status), tail


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--execroot", required=True, help="the build's execution root (bazel info execution_root)")
    p.add_argument("--external", required=True, help="its external repositories (<output_base>/external)")
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    p.add_argument("plans", nargs="+", help="plan/clang_args.json files")
    opts = p.parse_args(argv)
    calls = []
    for path in opts.plans:
        with open(path) as f:
            calls.append((path, json.load(f)))
    scratch = tempfile.mkdtemp(prefix="clang-oneshot-")
    try:
        execroot = scratch_execroot(opts.execroot, opts.external, scratch)
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            results = list(pool.map(
                lambda item: run_one(oneshot_argv(item[1][1], os.path.join(scratch, "%d.o" % item[0])), execroot),
                enumerate(calls)))
        wall = time.monotonic() - start
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    failed = [(path, r[3]) for (path, _), r in zip(calls, results) if r[2] != 0]
    for path, tail in failed:
        print("clang_oneshot: %s failed:\n%s" % (path, tail), file=sys.stderr)
    print(json.dumps({
        "wall_s": round(wall, 3),
        "cpu_s": round(sum(r[1] for r in results), 2),
        "files": {path: round(r[0], 3) for (path, _), r in zip(calls, results)},
        "ok": not failed,
    }))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
