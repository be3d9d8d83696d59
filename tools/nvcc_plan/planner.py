"""The CudaPlan action's tool: nvcc's own plan turned into one script per stage.

  planner compile --layout=LAYOUT.json --nvcc=PATH -- NVCC_ARGS...
  planner device_link --layout=LAYOUT.json --nvcc=PATH -- NVCC_ARGS...

`compile` (cuda_library, one action per .cu file) runs `nvcc --dryrun` with
the target's flags, writes every stage's script (compile_scripts.py), the
source's module id (module_id.py) and the nvcc arguments the scripts replay.
`device_link` (cuda_device_link) does the same for `nvcc -dlink`
(link_scripts.py). The layout, written by the rules, names every file; it is
checked against the stage table (layout.py) before anything runs.
"""

import json
import os
import sys

from absl import app
from absl import flags

from tools.nvcc_plan import compile_scripts
from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import link_scripts
from tools.nvcc_plan import nvcc_plan_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("layout", None, "the layout the rules wrote (plan/layout.json)")
flags.DEFINE_string("nvcc", None, "execroot-relative path of nvcc")
flags.mark_flag_as_required("layout")
flags.mark_flag_as_required("nvcc")

_COMMANDS = ("compile", "device_link")


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
        text = nvcc_plan_lib.run_dryrun(nvcc, nvcc_args)
        the_plan = nvcc_plan_lib.plan_from_text(text)
        if command == "compile":
            scripts = compile_scripts.build(the_plan, layout)
        else:
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


def main(argv):
    if len(argv) < 2 or argv[1] not in _COMMANDS:
        raise app.UsageError("usage: planner {%s} --layout=F --nvcc=P -- NVCC_ARGS..." % "|".join(_COMMANDS))
    return plan(argv[1], FLAGS.layout, FLAGS.nvcc, argv[2:])


if __name__ == "__main__":
    app.run(main)
