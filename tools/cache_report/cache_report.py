"""Reports reuse per CUDA stage and arch from Bazel's execution log.

  bazel build ... --execution_log_binary_file=/tmp/exec.log   (or --execution_log_json_file)
  bazel run //tools/cache_report -- /tmp/exec.log [--baseline=/tmp/earlier.log] [--format=table|csv|json]

A table of stage x arch: actions, cache hits (disk or remote), executed, the
wall seconds executed, and (with --baseline, the log of the build that filled
the cache) the seconds the hits saved.

  bazel run //tools/cache_report -- /tmp/exec.log --inputs

Per stage x arch instead: each action's declared input files and bytes (the
median, the largest count, and the input roots with the most files: what a
sandbox plants and an executor stages) and the outputs it wrote.
"""

import os
import sys

from absl import app
from absl import flags

from tools.cache_report import cache_report_lib

FLAGS = flags.FLAGS
flags.DEFINE_enum("format", "table", ["table", "csv", "json"], "Output format.")
flags.DEFINE_string("baseline", None, "Execution log of the build that filled the cache.")
flags.DEFINE_bool("all_mnemonics", False, "Also list non-CUDA actions.")
flags.DEFINE_string("graph", None, "Print the stage DAG of this target (a label) as Graphviz dot, cache hits filled.")
flags.DEFINE_bool("inputs", False, "Per stage and arch: the declared input files and bytes of each action (the median, "
                  "and where they come from) and its outputs, instead of the reuse table.")


def _path(p):
    base = os.environ.get("BUILD_WORKING_DIRECTORY", "")
    return p if os.path.isabs(p) or not base else os.path.join(base, p)


def main(argv):
    if len(argv) != 2:
        raise app.UsageError("give one execution log: cache_report LOG")
    try:
        spawns = cache_report_lib.read_log(_path(argv[1]))
        baseline = cache_report_lib.read_log(_path(FLAGS.baseline)) if FLAGS.baseline else None
    except (OSError, cache_report_lib.LogError) as e:
        print("cache_report: error: %s" % e, file=sys.stderr)
        return 1
    if FLAGS.graph:
        try:
            sys.stdout.write(cache_report_lib.stage_graph(spawns, FLAGS.graph))
        except cache_report_lib.LogError as e:
            print("cache_report: error: %s" % e, file=sys.stderr)
            return 1
        return 0
    if FLAGS.inputs:
        rows = cache_report_lib.inputs_table(spawns, only_cuda=not FLAGS.all_mnemonics)
        sys.stdout.write(cache_report_lib.format_inputs_table(rows, FLAGS.format))
        return 0
    rows = cache_report_lib.summarize(spawns, baseline, only_cuda=not FLAGS.all_mnemonics)
    sys.stdout.write(cache_report_lib.format_rows(rows, FLAGS.format))
    if baseline is not None and FLAGS.format == "table":
        sys.stdout.write(cache_report_lib.headline(rows))
    return 0


if __name__ == "__main__":
    app.run(main)
