"""Prints nvcc's plan for a compile as a stage graph, or runs it.

  bazel run //tools:nvcc_plan -- [--format=table|json] [--graph[=FILE]] [--nvcc=PATH] -- <nvcc args>
  bazel run //tools:nvcc_plan -- --run [-j N] [--table[=FILE]] [--graph=FILE] [--module_id_label=//pkg:target]
      [--keep_dir=DIR] [--nvcc=PATH] -- <nvcc -c args>

Without Bazel (only Python 3 with absl-py), from anywhere:
  python3 <repo>/tools/nvcc_plan/nvcc_plan.py --run -j 16 -- -c k.cu -o k.o -arch=sm_90

Runs `nvcc --dryrun <nvcc args>` with the build's CUDA toolkit (or --nvcc)
in the directory bazel run was called from, and prints each command's stage
(host preprocess, cudafe++, per-arch device preprocess / cicc / ptxas,
fatbinary, host compile), its arch, and the files that link the stages.
--graph prints Graphviz instead (like PyTorch's fast_nvcc.py --graph).

--run compiles instead, as that nvcc call would (same -o output): the stages
run as a dataflow graph, at most -j at a time, with the staged rules' scripts
and a deterministic module id (runner.py). --table writes per-stage times as
CSV and prints the total CPU time, wall time and critical path to stderr;
--graph writes the executed graph with its times.
"""

import json
import os
import shutil
import sys

from absl import app
from absl import flags

try:
    from runfiles import runfiles
except ImportError:  # outside Bazel, e.g. a GPU machine with only absl-py
    runfiles = None

try:
    from tools.nvcc_plan import dryrun
except ImportError:
    # Run as a plain script (`python3 tools/nvcc_plan/nvcc_plan.py`): import from this checkout.
    sys.modules.pop("tools", None)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from tools.nvcc_plan import dryrun
from tools.nvcc_plan import runner

FLAGS = flags.FLAGS
flags.DEFINE_enum("format", "table", ["table", "json"], "Output format of the plan.")
flags.DEFINE_string("graph", None, "Write the stage graph as Graphviz dot to this file ('-' or a bare --graph: stdout).")
flags.DEFINE_string(
    "nvcc",
    None,
    "nvcc to ask (default: under bazel run, the selected toolkit's, see --@rules_cuda_stages//cuda_rules:toolkit; "
    "otherwise nvcc on PATH, $CUDA_PATH/bin/nvcc, $CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc).",
)
flags.DEFINE_bool("run", False, "Compile: run the plan's stages as a parallel graph instead of printing it.")
flags.DEFINE_integer("jobs", None, "With --run: most stages running at once (default: the CPU count).", short_name="j")
flags.DEFINE_string("table", None, "With --run: write per-stage times as CSV to this file ('-' or a bare --table: stdout).")
flags.DEFINE_string("keep_dir", None, "With --run: keep every stage's files and scripts in this directory.")
flags.DEFINE_string(
    "pinned_arch_list",
    None,
    "With --run: the __CUDA_ARCH_LIST__ every stage gets instead of nvcc's, as cuda_library gives a compile of a "
    "subset of the shipped set (e.g. 750,800,860,900), so its stages equal those of a build of the whole set.",
)
flags.DEFINE_string(
    "module_id_label",
    None,
    "With --run: use the module id cuda_library gives the source in this target (e.g. //pkg:kernels); "
    "the source path must then be workspace-relative (run from the workspace root or an execroot).",
)


flags.DEFINE_string(
    "toolchain_flags",
    None,
    "With --run: a target's plan/layout.json; its host_toolchain_flags (the C++ toolchain's flags, passed with "
    "-Xcompiler in the nvcc arguments) reach the device preprocess as its device_toolchain_flags only, as in "
    "the target's stages.",
)


def _toolchain_flags(path, cwd):
    try:
        with open(os.path.join(cwd, path)) as f:
            obj = json.load(f)
        return obj["host_toolchain_flags"], obj["device_toolchain_flags"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise app.UsageError("--toolchain_flags=%s: not a target's plan/layout.json (%s)" % (path, e))


def _runfiles_nvcc():
    # //cuda_rules:toolkit_files puts the selected toolkit's bin/nvcc in the runfiles.
    root = None
    if runfiles is not None:
        r = runfiles.Create()
        root = r.EnvVars().get("RUNFILES_DIR") if r else None
    root = root or os.path.abspath(sys.argv[0]) + ".runfiles"
    if not os.path.isdir(root):
        return None
    for repo in sorted(os.listdir(root)):
        path = os.path.join(root, repo, "bin", "nvcc")
        if os.path.exists(path) and os.path.exists(os.path.join(root, repo, "bin", "nvcc.profile")):
            return path
    return None


def _default_nvcc():
    found = _runfiles_nvcc() or shutil.which("nvcc")
    if found:
        return found
    for var in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(var) and os.path.exists(os.path.join(os.environ[var], "bin", "nvcc")):
            return os.path.join(os.environ[var], "bin", "nvcc")
    if os.path.exists("/usr/local/cuda/bin/nvcc"):
        return "/usr/local/cuda/bin/nvcc"
    raise app.UsageError("cannot find nvcc (runfiles, PATH, CUDA_PATH, CUDA_HOME, /usr/local/cuda); pass --nvcc=PATH")


def _nvcc_path(nvcc, cwd):
    """A relative --nvcc is spelled through /proc/self/cwd, as the CudaPlan action spells the toolkit's."""
    if os.path.isabs(nvcc) or "/" not in nvcc:
        return nvcc
    if not os.path.exists(os.path.join(cwd, nvcc)):
        raise app.UsageError("--nvcc=%s does not exist (relative to %s)" % (nvcc, cwd))
    if os.path.normpath(nvcc).startswith("../"):
        return os.path.normpath(os.path.join(cwd, nvcc))
    return "/proc/self/cwd/" + os.path.normpath(nvcc)


def main(argv):
    nvcc_args = argv[1:]
    if not nvcc_args:
        raise app.UsageError("give nvcc's arguments after --, e.g. -- -arch=sm_90 -c k.cu")
    cwd = os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd()
    nvcc = _nvcc_path(FLAGS.nvcc, cwd) if FLAGS.nvcc else _default_nvcc()
    if FLAGS.run:
        return runner.run(
            nvcc_args,
            runner.RunOptions(
                nvcc=nvcc,
                jobs=FLAGS.jobs,
                cwd=cwd,
                keep_dir=FLAGS.keep_dir,
                module_id_label=FLAGS.module_id_label,
                pinned_arch_list=FLAGS.pinned_arch_list,
                table=FLAGS.table,
                graph=FLAGS.graph,
                toolchain_flags=_toolchain_flags(FLAGS.toolchain_flags, cwd) if FLAGS.toolchain_flags else None,
            ),
        )
    for name in ("jobs", "table", "keep_dir", "module_id_label", "pinned_arch_list", "toolchain_flags"):
        if FLAGS[name].present:
            raise app.UsageError("--%s needs --run" % name)
    try:
        plan = dryrun.plan_from_text(dryrun.run_dryrun(nvcc, nvcc_args, cwd=cwd))
    except dryrun.PlanError as e:
        print("nvcc_plan: error: %s" % e, file=sys.stderr)
        return 1
    if FLAGS.graph:
        dot = dryrun.to_graphviz(plan)
        if FLAGS.graph == "-":
            sys.stdout.write(dot)
            return 0
        with open(FLAGS.graph, "w") as f:
            f.write(dot)
    if FLAGS.format == "json":
        json.dump(dryrun.to_json(plan), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(dryrun.to_table(plan))
    return 0


# Our flags: those that take a value (`--x=v` or `--x v`), those whose bare
# form means stdout, and switches.
_VALUE_FLAGS = ("--format", "--nvcc", "--jobs", "--keep_dir", "--module_id_label", "--pinned_arch_list", "--toolchain_flags")
_STDOUT_FLAGS = ("--graph", "--table")
_SWITCHES = ("--run", "--norun", "--nograph", "--help", "--helpshort", "--helpfull")


def parse_flags(argv):
    """Our flags lead; the first other argument (or what follows `--`) is nvcc's."""
    own = [argv[0]]
    rest = []
    i = 1
    while i < len(argv):
        arg = argv[i]
        name = arg.split("=", 1)[0]
        if arg == "--":
            rest = argv[i + 1 :]
            break
        if arg == "-j" or arg in _VALUE_FLAGS:
            if i + 1 >= len(argv):
                raise app.UsageError("%s needs a value" % arg)
            own.append("--jobs=" + argv[i + 1] if arg == "-j" else arg + "=" + argv[i + 1])
            i += 2
            continue
        if arg.startswith("-j") and arg[2:].lstrip("=").isdigit():  # -j16, -j=16
            own.append("--jobs=" + arg[2:].lstrip("="))
        elif arg in _STDOUT_FLAGS:
            own.append(arg + "=-")
        elif arg == "--nograph":
            pass  # the old boolean's negation: no graph is the default
        elif name in _VALUE_FLAGS + _STDOUT_FLAGS or arg in _SWITCHES:
            own.append(arg)
        else:
            rest = argv[i:]
            break
        i += 1
    FLAGS(own)
    # Relative output files are relative to where the command was given (bazel
    # run changes directories; a relative --keep_dir is used as is, relative to
    # the directory the stages run in, which is that one).
    cwd = os.environ.get("BUILD_WORKING_DIRECTORY")
    if cwd:
        for name in ("graph", "table"):
            value = FLAGS[name].value
            if value and value != "-" and not os.path.isabs(value):
                FLAGS[name].value = os.path.join(cwd, value)
    return [argv[0]] + rest


if __name__ == "__main__":
    app.run(main, flags_parser=parse_flags)
