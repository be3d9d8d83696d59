"""Writes compile_commands.json for editors (clangd, ...): every CUDA source and every C/C++ source of the targets.

  bazel run @rules_cuda_stages//tools:compile_commands -- [PATTERN...] [--format=clang|nvcc]
      [--output=compile_commands.json] [--bazel_arg=--config=ci ...]

PATTERNs are target patterns (default //...). The commands come from
`bazel aquery` of the patterns' dependencies, run in the workspace with the
same Bazel (--bazel) and any --bazel_arg flags your builds use; nothing is
built. The file is written at the workspace root (--output is relative to it).
"""

import json
import os
import shlex
import subprocess
import sys

from absl import app
from absl import flags

from tools.compile_commands import compile_commands_lib as lib
from tools.nvcc_plan import dryrun

FLAGS = flags.FLAGS
flags.DEFINE_enum("format", "clang", ["clang", "nvcc"], "CUDA entries: flags clang's CUDA mode takes (clangd), or the nvcc command.")
flags.DEFINE_string("output", "compile_commands.json", "Where to write, relative to the workspace root ('-': stdout).")
flags.DEFINE_string(
    "bazel",
    os.environ.get("BAZEL", "bazel"),
    "The Bazel to query with, with any startup options it needs (split as /bin/sh would; default: $BAZEL, else bazel).",
)
flags.DEFINE_multi_string("bazel_arg", [], "A flag for `bazel info` and `bazel aquery` (e.g. --config=ci); repeat for more.")


def _bazel(workspace, *args):
    cmd = shlex.split(FLAGS.bazel) + [args[0]] + list(FLAGS.bazel_arg) + list(args[1:])
    proc = subprocess.run(cmd, cwd=workspace, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("compile_commands: `%s` failed:\n%s" % (" ".join(cmd), proc.stderr[-4000:]))
    return proc.stdout


def _sysroot_finder(execution_root):
    cache = {}

    def sysroot_of(compiler):
        if compiler not in cache:
            path = compiler if os.path.isabs(compiler) else os.path.join(execution_root, compiler)
            try:
                proc = subprocess.run([path, "-print-sysroot"], capture_output=True, text=True, cwd=execution_root)
                found = proc.stdout.strip() if proc.returncode == 0 else ""
            except OSError:
                found = ""
            cache[compiler] = found if found and found != "/" else None
        return cache[compiler]

    return sysroot_of


# Headers clang's CUDA wrapper includes that a toolkit may lack (clang_shims/*.h).
_SHIMS = ("texture_fetch_functions.h", "curand_mtgp32_kernel.h")


def _shim_dir():
    # The package's own files, through the runfiles link to their place in the repository.
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.join(here, "clang_shims")


def _toolkit_finder(paths):
    cache = {}

    def toolkit_of(nvcc):
        if nvcc not in cache:
            path = paths(nvcc)
            path = path if os.path.isabs(path) else os.path.join(paths.workspace, path)
            try:
                text = dryrun.run_dryrun(path, ["-x", "cu", "-c", "/dev/null", "-o", "/dev/null"], cwd=paths.workspace)
            except (OSError, dryrun.PlanError) as e:
                raise lib.Error("cannot ask %s for its include directories (%s); build a target with it first" % (path, e))
            implicit = lib.implicit_includes(dryrun.parse_dryrun(text).env_dict())
            include = os.path.join(os.path.dirname(os.path.dirname(path)), "include")
            missing = [h for h in _SHIMS if not os.path.exists(os.path.join(include, h))]
            cache[nvcc] = (implicit, _shim_dir() if missing else None)
        return cache[nvcc]

    return toolkit_of


def main(argv):
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd()
    patterns = argv[1:] or ["//..."]
    info = dict(line.split(": ", 1) for line in _bazel(workspace, "info", "execution_root", "output_base").splitlines()
                if ": " in line)
    paths = lib.Paths(workspace, info["execution_root"], info["output_base"])
    out = _bazel(workspace, "aquery", "--output=jsonproto", "--include_param_files", "--include_artifacts=false",
                 lib.aquery_expression(patterns))
    try:
        found = lib.entries(json.loads(out), paths, fmt=FLAGS.format, sysroot_of=_sysroot_finder(info["execution_root"]),
                            toolkit_of=_toolkit_finder(paths))
    except lib.Error as e:
        print("compile_commands: %s" % e, file=sys.stderr)
        return 1
    text = lib.to_json(found)
    if FLAGS.output == "-":
        sys.stdout.write(text)
    else:
        target = os.path.join(workspace, FLAGS.output)
        with open(target, "w") as f:
            f.write(text)
        # CUDA sources (.cu, and C++ files of the CUDA rules): clang's -x cuda, or nvcc itself.
        cu = len([e for e in found if "cuda" in e["arguments"] or e["arguments"][0].endswith("/nvcc")])
        print("compile_commands: wrote %d entries (%d CUDA, %d C/C++) to %s" % (len(found), cu, len(found) - cu, target),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    app.run(main)
