"""The CudaPlan action's program: nvcc's own plan turned into one script per stage.

  cuda_plan compile --layout=LAYOUT.json --nvcc=PATH -- NVCC_ARGS...
  cuda_plan device_link --layout=LAYOUT.json --nvcc=PATH -- NVCC_ARGS...
  cuda_plan clang_compile --layout=LAYOUT.json --clang=PATH -- CLANG_ARGS...

One function per verb. `compile` (one source of a cuda_library or
cuda_objects) runs `nvcc --dryrun` with the target's flags and writes every
stage's script (compile_scripts.py), the source's module id (module_id.py)
and the nvcc arguments the scripts replay. `device_link` does the same for
`nvcc -dlink` (link_scripts.py). `clang_compile` (a source compiled by
clang, //cuda_rules:compiler=clang) runs `clang -###` instead and writes
the clang table's scripts (clang_scripts.py). The layout, written by the rules, names
every file; it is checked against the stage table (layout.py) before
anything runs.

The rules pass every argument in params files (`@FILE`, one argument per
line), so Bazel can run CudaPlan as a persistent worker (JSON protocol):

  cuda_plan --persistent_worker

reads one WorkRequest per line on stdin and answers each with a WorkResponse
on stdout, so Python starts once per worker instead of once per source
(docs/internals.md, "What each action reads, and CudaPlan as a persistent worker"), and nvcc is asked
once per set of flags instead of once per source (dryrun_cache.py). A request
runs the same code as a one-shot call and writes the same files.
"""

import contextlib
import io
import json
import os
import sys
import traceback

from absl import app
from absl import flags

from tools.nvcc_plan import clang_scripts
from tools.nvcc_plan import compile_scripts
from tools.nvcc_plan import dryrun
from tools.nvcc_plan import dryrun_cache
from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import link_scripts

FLAGS = flags.FLAGS
flags.DEFINE_string("layout", None, "the layout the rules wrote (plan/layout.json)")
flags.DEFINE_string("nvcc", None, "execroot-relative path of nvcc")
flags.DEFINE_string("clang", None, "the clang driver (clang_compile)")
flags.DEFINE_bool("persistent_worker", False, "serve Bazel's WorkRequests (JSON, one per line) on stdin")

# A worker's dry runs: a compile's asked once per set of flags (dryrun_cache.py).
_DRYRUNS = dryrun_cache.DryrunCache()


def compile(layout_path, nvcc, nvcc_args):  # noqa: A001 - the verb's name
    """`cuda_plan compile`: one source's stage scripts, module id and nvcc arguments."""
    layout = layout_lib.load_compile(layout_path)
    with _named(layout.display_label):
        scripts = compile_scripts.for_source(_DRYRUNS.plan(_canonical(nvcc), nvcc_args), layout)
    scripts[layout.module_id_file] = compile_scripts.module_id_of(layout)
    _write(scripts, layout.nvcc_args_file, nvcc_args)


def device_link(layout_path, nvcc, nvcc_args):
    """`cuda_plan device_link`: a device link's stage scripts, its link-error markers and nvcc arguments."""
    layout = layout_lib.load_link(layout_path)
    with _named(layout.label):
        scripts = link_scripts.for_link(_DRYRUNS.plan(_canonical(nvcc), nvcc_args), layout)
    _write(scripts, layout.nvcc_args_file, nvcc_args)


def clang_compile(layout_path, clang, clang_args):
    """`cuda_plan clang_compile`: one source's clang stage scripts, module id and driver call."""
    layout = layout_lib.load_compile(layout_path)
    with _named(layout.display_label):
        out = clang_scripts.plan(clang, layout, clang_args)
    for path, content in out.items():
        with open(path, "w") as f:
            f.write(content)


VERBS = {"compile": compile, "device_link": device_link, "clang_compile": clang_compile}


@contextlib.contextmanager
def _named(label):
    """Names the target in a PlanError's message that does not name it yet."""
    try:
        yield
    except dryrun.PlanError as e:
        message = str(e)
        if message.startswith("rules_cuda_stages:"):
            raise
        raise dryrun.PlanError("rules_cuda_stages: %s: %s" % (label, message)) from e


def _canonical(nvcc):
    # Run through the canonical execroot spelling, so nvcc's own paths
    # (_HERE_, TOP, its include directories) are spelled that way too.
    return nvcc if os.path.isabs(nvcc) else os.path.join("/proc/self/cwd", nvcc)


def _write(files, nvcc_args_file, nvcc_args):
    for path, content in files.items():
        with open(path, "w") as f:
            f.write(content)
    # The exact nvcc invocation the scripts replay (for fidelity checks and debugging).
    with open(nvcc_args_file, "w") as f:
        f.write(json.dumps(nvcc_args, indent=1) + "\n")


def plan(verb, layout_path, nvcc, nvcc_args):
    """Runs one CudaPlan action; returns its exit status (messages on stderr)."""
    try:
        VERBS[verb](layout_path, nvcc, nvcc_args)
    except layout_lib.LayoutError as e:
        print("rules_cuda_stages: CudaPlan: %s" % e, file=sys.stderr)
        return 1
    except dryrun.PlanError as e:
        print(str(e), file=sys.stderr)
        return 1
    return 0


_USAGE = "usage: cuda_plan {compile|device_link} --layout=F --nvcc=P -- NVCC_ARGS... | clang_compile --layout=F --clang=P -- CLANG_ARGS..."


def expand_params(argv):
    """argv with each `@FILE` argument replaced by FILE's lines (Bazel's "multiline" params files)."""
    out = []
    for arg in argv:
        if arg.startswith("@"):
            with open(arg[1:]) as f:
                out.extend(f.read().splitlines())
        else:
            out.append(arg)
    return out


def _run(argv):
    """One plan from parsed flags and positional arguments [program, command, nvcc args...]."""
    if len(argv) < 2 or argv[1] not in VERBS or not FLAGS.layout:
        raise app.UsageError(_USAGE)
    compiler = FLAGS.clang if argv[1] == "clang_compile" else FLAGS.nvcc
    if not compiler:
        raise app.UsageError(_USAGE)
    return plan(argv[1], FLAGS.layout, compiler, argv[2:])


def serve(stdin, stdout):
    """The persistent worker's loop: one JSON WorkRequest per line in, one WorkResponse per line out.

    Messages of a request (what a one-shot run prints on stderr) go into its
    response's `output`; nothing else is ever written to stdout.
    """
    for line in stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        output = io.StringIO()
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            try:
                FLAGS.unparse_flags()
                status = _run(FLAGS(["cuda_plan"] + expand_params(request.get("arguments", []))))
            except (app.UsageError, flags.Error) as e:
                print("rules_cuda_stages: CudaPlan: %s" % e, file=sys.stderr)
                status = 2
            except Exception:  # noqa: BLE001 - a failed request must not end the worker
                traceback.print_exc()
                status = 1
        response = {"exitCode": status, "output": output.getvalue(), "requestId": request.get("requestId", 0)}
        stdout.write(json.dumps(response) + "\n")
        stdout.flush()
    return 0


def main(argv):
    if FLAGS.persistent_worker:
        return serve(sys.stdin, sys.stdout)
    return _run(argv)


if __name__ == "__main__":
    app.run(main, argv=expand_params(sys.argv))
