"""Prints nvcc's plan for a compile as a stage graph.

  bazel run //tools:nvcc_plan -- [--format=table|json] [--graph] [--nvcc=PATH] <nvcc args>

Runs `nvcc --dryrun <nvcc args>` with the build's CUDA toolkit (or --nvcc)
in the directory bazel run was called from, and prints each command's stage
(host preprocess, cudafe++, per-arch device preprocess / cicc / ptxas,
fatbinary, host compile), its arch, and the files that link the stages.
--graph prints Graphviz instead (like PyTorch's fast_nvcc.py --graph).
"""

import json
import os
import sys

from absl import app
from absl import flags
from runfiles import runfiles

from tools.nvcc_plan import nvcc_plan_lib

FLAGS = flags.FLAGS
flags.DEFINE_enum("format", "table", ["table", "json"], "Output format.")
flags.DEFINE_bool("graph", False, "Print the stage graph as Graphviz dot.")
flags.DEFINE_string("nvcc", None, "nvcc to ask (default: the selected toolkit's, see --@rules_cuda_stages//cuda_rules:toolkit).")


def _default_nvcc():
    # //cuda_rules:toolkit_files puts the selected toolkit's bin/nvcc in the runfiles.
    root = runfiles.Create().EnvVars().get("RUNFILES_DIR") or os.path.abspath(sys.argv[0]) + ".runfiles"
    for repo in sorted(os.listdir(root)):
        path = os.path.join(root, repo, "bin", "nvcc")
        if os.path.exists(path) and os.path.exists(os.path.join(root, repo, "bin", "nvcc.profile")):
            return path
    raise app.UsageError("cannot find the toolkit's nvcc in the runfiles (%s); pass --nvcc=PATH" % root)


def main(argv):
    nvcc_args = argv[1:]
    if not nvcc_args:
        raise app.UsageError("give nvcc's arguments after --, e.g. -- -arch=sm_90 -c k.cu")
    nvcc = FLAGS.nvcc or _default_nvcc()
    cwd = os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd()
    try:
        plan = nvcc_plan_lib.plan_from_text(nvcc_plan_lib.run_dryrun(nvcc, nvcc_args, cwd=cwd))
    except nvcc_plan_lib.PlanError as e:
        print("nvcc_plan: error: %s" % e, file=sys.stderr)
        return 1
    if FLAGS.graph:
        sys.stdout.write(nvcc_plan_lib.to_graphviz(plan))
    elif FLAGS.format == "json":
        json.dump(nvcc_plan_lib.to_json(plan), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(nvcc_plan_lib.to_table(plan))
    return 0


_OWN_FLAGS = ("--format", "--graph", "--nograph", "--nvcc", "--help", "--helpshort", "--helpfull")


def parse_flags(argv):
    """Our flags lead; the first other argument (or what follows `--`) is nvcc's."""
    own = [argv[0]]
    rest = []
    for i, arg in enumerate(argv[1:], start=1):
        if arg == "--":
            rest = argv[i + 1 :]
            break
        if arg.split("=", 1)[0] not in _OWN_FLAGS:
            rest = argv[i:]
            break
        own.append(arg)
    FLAGS(own)
    return [argv[0]] + rest


if __name__ == "__main__":
    app.run(main, flags_parser=parse_flags)
