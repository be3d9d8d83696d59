"""The CudaPlan action's tool: nvcc's own plan turned into one script per stage.

  planner compile --layout=LAYOUT.json --nvcc=PATH -- NVCC_ARGS...
  planner device_link --layout=LAYOUT.json --nvcc=PATH -- NVCC_ARGS...

`compile` (cuda_library, one action per .cu file) runs `nvcc --dryrun` with
the target's flags, writes every stage's script (compile_scripts.py), the
source's module id (module_id.py) and the nvcc arguments the scripts replay.
`device_link` (cuda_device_link) does the same for `nvcc -dlink`
(link_scripts.py). The layout, written by the rules, names every file; it is
checked against the stage table (layout.py) before anything runs.

The rules pass every argument in params files (`@FILE`, one argument per
line), so Bazel can run CudaPlan as a persistent worker (JSON protocol):

  planner --persistent_worker

reads one WorkRequest per line on stdin and answers each with a WorkResponse
on stdout, so Python starts once per worker instead of once per source
(docs/cuda_library.md, "CudaPlan as a persistent worker"), and nvcc is asked
once per set of flags instead of once per source (plan_cache.py). A request
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

from tools.nvcc_plan import compile_scripts
from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import link_scripts
from tools.nvcc_plan import nvcc_plan_lib
from tools.nvcc_plan import plan_cache

FLAGS = flags.FLAGS
flags.DEFINE_string("layout", None, "the layout the rules wrote (plan/layout.json)")
flags.DEFINE_string("nvcc", None, "execroot-relative path of nvcc")
flags.DEFINE_bool("persistent_worker", False, "serve Bazel's WorkRequests (JSON, one per line) on stdin")

_COMMANDS = ("compile", "device_link")

# A worker's plans, one `nvcc --dryrun` per set of flags (plan_cache.py).
_PLANS = plan_cache.PlanCache()


def _write(path, content):
    with open(path, "w") as f:
        f.write(content)


def plan(command, layout_path, nvcc, nvcc_args):
    """Runs one CudaPlan action; returns its exit status (messages on stderr)."""
    try:
        layout = layout_lib.load(layout_path, "compile" if command == "compile" else "link")
    except layout_lib.LayoutError as e:
        print("rules_cuda_stages: CudaPlan: %s" % e, file=sys.stderr)
        return 1
    label = layout.display_label if command == "compile" else layout.label
    try:
        # Run through the canonical execroot spelling, so nvcc's own paths
        # (_HERE_, TOP, its include directories) are spelled that way too.
        nvcc = nvcc if os.path.isabs(nvcc) else os.path.join("/proc/self/cwd", nvcc)
        if command == "compile":
            scripts = compile_scripts.build(_PLANS.plan(nvcc, nvcc_args), layout)
        else:
            the_plan = nvcc_plan_lib.plan_from_text(nvcc_plan_lib.run_dryrun(nvcc, nvcc_args))
            scripts = link_scripts.build(the_plan, layout)
    except (compile_scripts.PlanMismatch, link_scripts.PlanMismatch, nvcc_plan_lib.PlanError) as e:
        msg = str(e)
        if not msg.startswith("rules_cuda_stages:"):
            msg = "rules_cuda_stages: %s: %s" % (label, msg)
        print(msg, file=sys.stderr)
        return 1
    for path, content in scripts.items():
        _write(path, content)
    if command == "compile":
        _write(layout.module_id_file, compile_scripts.module_id_of(layout))
    # The exact nvcc invocation these scripts replay (for fidelity checks and debugging).
    _write(layout.nvcc_args_file, json.dumps(nvcc_args, indent=1) + "\n")
    return 0


_USAGE = "usage: planner {%s} --layout=F --nvcc=P -- NVCC_ARGS..." % "|".join(_COMMANDS)


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
    if len(argv) < 2 or argv[1] not in _COMMANDS or not FLAGS.layout or not FLAGS.nvcc:
        raise app.UsageError(_USAGE)
    return plan(argv[1], FLAGS.layout, FLAGS.nvcc, argv[2:])


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
                status = _run(FLAGS(["planner"] + expand_params(request.get("arguments", []))))
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
