"""Per stage x arch: the inputs each action declares against what its command reads.

  tools/bazelw build --execution_log_json_file=/tmp/exec.json @rules_cuda_stages_bench//:all
  python3 bench/stage_inputs/stage_reads.py /tmp/exec.json --execroot="$(tools/bazelw info execution_root)"

For the first action of each stage x arch in the log whose inputs are all in
the execution root, it runs the action's command there again, with the
action's environment, under `strace -f`, and prints: the declared input
files and MB (what linux-sandbox plants and a remote executor stages), how
many of them the command opened or ran, and where the declared and the read
files come from. Files under the execution root that the command opened
without declaring them are listed (a sandboxed build would have failed on
them; none are expected).

It runs on the host, not under tools/bazelw: strace is the host's, and the
commands use the host compiler and toolkit paths the build used (under
tools/bazelw the same Debian release's gcc and the host's toolkit, mounted
at the same paths). Running a stage again rewrites its outputs in place with
the same bytes (the stages are deterministic); the next Bazel build sees no
change.
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from bench.stage_inputs import stage_reads_lib  # noqa: E402
from tools.cache_report import cache_report_lib  # noqa: E402


def _scratch_execroot(execroot, scratch):  # scratch: a new directory under the output base
    """The execution root as an action sees it: Bazel 7 keeps external repositories under the output base.

    A directory of links: each top-level entry of the execution root, and
    `external` to the output base's (whose repositories the inputs name).
    """
    output_base = os.path.dirname(os.path.dirname(os.path.abspath(execroot)))
    for name in os.listdir(execroot):
        if name != "external":
            os.symlink(os.path.join(execroot, name), os.path.join(scratch, name))
    os.symlink(os.path.join(output_base, "external"), os.path.join(scratch, "external"))
    return scratch


def _runnable(spawn, execroot):
    return spawn.args and all(os.path.exists(os.path.join(execroot, p)) for p in spawn.inputs)


def _trace(spawn, execroot, namespace):
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace")
        env = dict(spawn.env)
        env.setdefault("PATH", "/usr/bin:/bin")
        command = ["/usr/bin/env", "-i"] + ["%s=%s" % kv for kv in sorted(env.items())] + list(spawn.args)
        if namespace:
            # tools/bazelw's mount namespace: its root is the provisioned root
            # filesystem (the host compiler the build used), the output base at
            # its host path.
            command = ["nsenter", "--mount=" + namespace, "--", "/bin/sh", "-c", 'cd "$1" && shift && exec "$@"', "sh",
                       execroot] + command
        run = subprocess.run(
            ["strace", "-f", "-qq", "-s", "4096", "-o", trace, "-e", "trace=open,openat,execve", *command],
            cwd=execroot, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError("%s (%s) exited with %d: %s" % (spawn.mnemonic, spawn.target, run.returncode,
                                                             run.stderr[-2000:]))
        with open(trace, errors="replace") as f:
            return stage_reads_lib.opened_paths(f)


def _rows(spawns, execroot, namespace):
    chosen = collections.OrderedDict()
    for spawn in spawns:
        key = (spawn.mnemonic, spawn.arch)
        if spawn.mnemonic.startswith("Cuda") and key not in chosen and _runnable(spawn, execroot):
            chosen[key] = spawn
    rows = []
    for (mnemonic, arch), spawn in chosen.items():
        sizes = dict(zip(spawn.inputs, spawn.input_sizes))
        reads = stage_reads_lib.compare(spawn.inputs, sizes, _trace(spawn, execroot, namespace), execroot,
                                        cache_report_lib.input_root, outputs=spawn.outputs)
        declared_roots = collections.Counter(cache_report_lib.input_root(p) for p in spawn.inputs)
        rows.append({
            "stage": mnemonic, "arch": arch, "target": spawn.target,
            "declared": reads.declared, "declared_mb": reads.declared_bytes / 1e6,
            "read": reads.read, "read_mb": reads.read_bytes / 1e6,
            "declared_roots": declared_roots.most_common(), "read_roots": reads.read_roots.most_common(),
            "undeclared": reads.undeclared,
        })
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", help="Bazel's execution log (--execution_log_json_file or _binary_file)")
    parser.add_argument("--execroot", required=True, help="`bazel info execution_root` of the build that wrote it")
    parser.add_argument("--namespace", default=os.path.expanduser("~/.cache/rules_cuda_stages/bazelw/ns/mnt"),
                        help="tools/bazelw's mount namespace the build ran in (its host compiler); '' for a native Bazel")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    args = parser.parse_args(argv)
    if not shutil.which("strace"):
        print("stage_reads: error: strace is not installed (apt-get install strace)", file=sys.stderr)
        return 1
    spawns = cache_report_lib.read_log(args.log)
    output_base = os.path.dirname(os.path.dirname(os.path.abspath(args.execroot)))
    with tempfile.TemporaryDirectory(dir=output_base, prefix="stage_reads.") as scratch:
        rows = _rows(spawns, _scratch_execroot(args.execroot, scratch), args.namespace)
    if args.format == "json":
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    order = {m: i for i, m in enumerate(cache_report_lib.STAGE_ORDER)}
    for row in sorted(rows, key=lambda r: (order.get(r["stage"], len(order)), r["arch"])):
        print("%s %s (%s): declared %d files, %.1f MB; read %d files, %.1f MB" % (
            row["stage"], row["arch"], row["target"], row["declared"], row["declared_mb"], row["read"], row["read_mb"]))
        read = dict(row["read_roots"])
        for root, n in row["declared_roots"][:6]:
            print("    %-60s declared %5d  read %5d" % (root, n, read.get(root, 0)))
        if row["undeclared"]:
            print("    opened without declaring: %s" % ", ".join(row["undeclared"][:10]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
