"""Wall time of a build on 1, 2, 4, ..., 1024 executors, simulated from its execution log.

  bazel build ... --execution_log_binary_file=/tmp/staged.log                                 (a cold build)
  bazel build ... --//cuda_rules:staged=false --execution_log_binary_file=/tmp/unstaged.log   (the same, unstaged)
  bazel run //tools/cache_report:scaleout -- /tmp/staged.log /tmp/unstaged.log --names=staged,unstaged

Rebuilds each log's action graph from the spawns' inputs and outputs and
list-schedules it with the recorded durations (tools/cache_report/scaleout_lib.py
says what is and is not modelled). Prints, per executor count, each log's
simulated wall and speed-up, where the curve flattens, and the longest chain.
With --measured, also the span the log itself recorded (first start to last
end) and, for remote execution, how long each stage queued on the executor.
"""

import os
import sys

from absl import app
from absl import flags

from tools.cache_report import cache_report_lib
from tools.cache_report import scaleout_lib

FLAGS = flags.FLAGS
flags.DEFINE_list("names", None, "A name per log (default: the file names).")
flags.DEFINE_list("executors", [str(n) for n in scaleout_lib.DEFAULT_EXECUTORS], "Executor counts to simulate.")
flags.DEFINE_enum("priority", "fifo", list(scaleout_lib.PRIORITIES), "Which ready action an idle executor takes.")
flags.DEFINE_enum("durations", "execution", list(scaleout_lib.DURATIONS),
                  "How long each action holds an executor (scaleout_lib.py says what each counts).")
flags.DEFINE_enum("format", "table", ["table", "csv", "json"], "Output format.")
flags.DEFINE_integer("waits_at", None, "Also print each stage's simulated queueing at this many executors.")
flags.DEFINE_bool("measured", False, "Also print each log's recorded span and per-stage remote queue times.")


def _path(p):
    base = os.environ.get("BUILD_WORKING_DIRECTORY", "")
    return p if os.path.isabs(p) or not base else os.path.join(base, p)


def main(argv):
    logs = argv[1:]
    if not logs:
        raise app.UsageError("give one or more execution logs: scaleout LOG [LOG...]")
    names = FLAGS.names or [os.path.basename(p) for p in logs]
    if len(names) != len(logs):
        raise app.UsageError("--names has %d names for %d logs" % (len(names), len(logs)))
    try:
        executors = sorted({int(n) for n in FLAGS.executors})
    except ValueError:
        raise app.UsageError("--executors takes whole numbers, e.g. 1,2,4")
    if executors[0] < 1:
        raise app.UsageError("--executors must be >= 1")
    curves = []
    extra = []
    for name, log in zip(names, logs):
        try:
            spawns = cache_report_lib.read_log(_path(log))
            curves.append(scaleout_lib.curve(name, spawns, executors, FLAGS.priority, FLAGS.durations))
            graph = scaleout_lib.build_graph(spawns, FLAGS.durations) if FLAGS.waits_at else None
        except (OSError, cache_report_lib.LogError) as e:
            print("scaleout: error: %s: %s" % (log, e), file=sys.stderr)
            return 1
        if FLAGS.waits_at:
            extra.append("%s: %s" % (name, scaleout_lib.format_waits(
                graph, scaleout_lib.simulate(graph, FLAGS.waits_at, FLAGS.priority))))
        if FLAGS.measured:
            span = scaleout_lib.measured_span(spawns)
            lines = ["%s: recorded span %s" % (name, "%.2f s" % span if span is not None else "not in the log")]
            for mnemonic, (n, total, worst) in sorted(scaleout_lib.queue_by_stage(spawns).items()):
                if total > 0:
                    lines.append("  %-22s %4d spawns  queued on the executor: mean %7.2f s  max %7.2f s"
                                 % (mnemonic, n, total / n, worst))
            extra.append("\n".join(lines) + "\n")
    sys.stdout.write(scaleout_lib.format_curves(curves, FLAGS.format))
    if FLAGS.format == "table":
        for text in extra:
            sys.stdout.write("\n" + text)
    return 0


if __name__ == "__main__":
    app.run(main)
