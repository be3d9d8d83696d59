"""Scale-out on a real multi-worker executor, and the simulation checked against it.

  tools/bazelw run //bench/scaleout_bench -- --out=/tmp/scaleout [--workers=1,2] [--reps=1] [--unstaged]
      [--targets=@rules_cuda_stages_bench//...] [--archs=sm_75,sm_80,sm_86,sm_90,compute_90]
      [--executor=buildgrid|remote_worker] [--bazel_flag=FLAG ...] [--bot_flag=FLAG ...]

Starts BuildGrid with one-core buildbox bots on 127.0.0.1 (rbe_cluster.py;
with --executor=remote_worker, Bazel's own RemoteWorker with one job per
core instead: remote_worker_cluster.py),
then for each worker count (and, with --unstaged, also with
`--//cuda_rules:staged=false`), in alternating order per repetition: fresh
bots, `bazel clean`, an untimed analysis pass, and a timed cold build with
`--config=rbe --noremote_accept_cached --noremote_local_fallback` and an
execution log. From each log: the span from the first action's start to the
last one's end, each stage's time queued on the executor (REAPI's queued ->
worker-start timestamps) and run time, the longest chain, and the wall that
tools/cache_report's list-scheduling simulation gives for that many executors
from the same log's durations (and from the 1-worker log's), so simulation and
measurement are compared side by side. Writes OUT/results.json, OUT/results.md
and the logs; prints the tables.

Only where nothing else runs: Bazel, BuildGrid and the bots share this
machine's cores (docs/performance/history.md, "Scale-out"). With BuildGrid,
where the most workers leave cores free, Bazel, BuildGrid and PostgreSQL run
on those only (--dedicated_cores), so a bot's core is its own, as an
executor's is.

With BuildGrid, each action's time on its bot is split from the executor's own
metadata (action_metadata.py): the job picked up, its inputs staged, run, its
outputs uploaded, the result reported; the report gives executor-seconds three
ways: Bazel's (setup + run + upload), the bots' slots held, and the bots' own
work (staging to upload).
"""

import json
import os
import subprocess
import sys
import time

from absl import app
from absl import flags

from tools.cache_report import cache_report_lib
from tools.cache_report import scaleout_lib
from bench.scaleout_bench import rbe_cluster
from bench.scaleout_bench import remote_worker_cluster

FLAGS = flags.FLAGS
flags.DEFINE_string("out", None, "Directory for logs and results (created).")
flags.DEFINE_list("workers", ["1", "2"], "Worker (bot) counts, one core each.")
flags.DEFINE_integer("reps", 1, "Repetitions of every build.")
flags.DEFINE_list("targets", ["@rules_cuda_stages_bench//..."], "What to build.")
flags.DEFINE_string("archs", "sm_75,sm_80,sm_86,sm_90,compute_90", "--//cuda_rules:archs (and shipped_archs).")
flags.DEFINE_bool("unstaged", False, "Also build with --//cuda_rules:staged=false.")
flags.DEFINE_string("bazel", "bazel", "The Bazel that runs the builds.")
flags.DEFINE_bool("dedicated_cores", True,
                  "With BuildGrid: run Bazel, BuildGrid and PostgreSQL on the cores the bots do not use (when the "
                  "most workers leave any), so that a bot's core runs only its own actions, as on an executor machine.")
flags.DEFINE_multi_string("bazel_flag", [], "A flag for every build (both sides), e.g. "
                          "--strategy=CudaPlan=remote; repeat it for more.")
flags.DEFINE_multi_string("bot_flag", [], "With BuildGrid: a flag for every buildbox-worker, e.g. --verbose; "
                          "repeat it for more.")
flags.DEFINE_string("cache_dir", rbe_cluster.DEFAULT_CACHE_DIR, "Where the unpacked packages and BuildGrid live.")
flags.DEFINE_enum("executor", "buildgrid", ["buildgrid", "remote_worker"],
                  "buildgrid: BuildGrid + buildbox bots, which report the worker's time per action; remote_worker: "
                  "Bazel's RemoteWorker, which does not (its executor time is the build's wall times its jobs).")
flags.mark_flag_as_required("out")


def _offline_flags():
    # Debian's offline Bazel (tools/bazelw's root filesystem) needs the project's --config=offline.
    try:
        with open("/etc/bazel/bazelrc") as f:
            return ["--config=offline"] if "--override_module=rules_cc" in f.read() else []
    except OSError:
        return []


class Runner:
    def __init__(self, out, workspace, cores=None):
        self.out = out
        self.workspace = workspace
        self.output_base = os.path.join(out, "output_base")
        # Bazel's server inherits the client's affinity when the client starts it.
        self.pin = rbe_cluster.pinned(cores)

    def bazel(self, *args, check=True):
        cmd = self.pin + [FLAGS.bazel, "--output_base=" + self.output_base, args[0]]
        if args[0] not in ("clean", "shutdown"):
            # --symlink_prefix=/: leave the workspace's bazel-* links to the user's own output base.
            cmd += _offline_flags() + ["--noshow_progress", "--symlink_prefix=/"]
        cmd += list(args[1:])
        proc = subprocess.run(cmd, cwd=self.workspace, capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise RuntimeError("`%s` failed:\n%s" % (" ".join(cmd), proc.stderr[-5000:]))
        return proc


def _stage_table(spawns):
    """Per mnemonic: actions, queue times, and the worker's time split into staging the inputs, running, uploading."""
    rows = {}
    for s in spawns:
        n, queued, worst, run, setup, upload = rows.get(s.mnemonic, (0, 0.0, 0.0, 0.0, 0.0, 0.0))
        rows[s.mnemonic] = (n + 1, queued + s.queue_s, max(worst, s.queue_s), run + s.wall_s, setup + s.setup_s,
                            upload + s.outputs_s)
    order = {m: i for i, m in enumerate(cache_report_lib.STAGE_ORDER)}
    return [{"stage": m, "actions": n, "queued_mean_s": q / n, "queued_max_s": w, "run_s": r,
             "inputs_mean_s": i / n, "run_mean_s": r / n, "outputs_mean_s": o / n}
            for m, (n, q, w, r, i, o) in sorted(rows.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))]


# The phases of one action on a bot, from its ExecutedActionMetadata: (name, from, to).
# BuildGrid stamps worker_start (the job assigned to the bot) and worker_completed (the
# bot's report received); the bot stamps the rest.
PHASES = (
    ("pickup", "worker_start", "input_fetch_start"),
    ("inputs", "input_fetch_start", "input_fetch_completed"),
    ("launch", "input_fetch_completed", "execution_start"),
    ("run", "execution_start", "execution_completed"),
    ("capture", "execution_completed", "output_upload_start"),
    ("outputs", "output_upload_start", "output_upload_completed"),
    ("report", "output_upload_completed", "worker_completed"),
)


def phase_table(spawns, metadata):
    """Per mnemonic: actions and the mean of each phase (PHASES), from the executor's metadata.

    Returns (rows, totals): totals["slot_s"] sums what the bot's slot was held
    (job assigned -> result reported), totals["busy_s"] what the bot itself did
    (inputs staged -> outputs uploaded).
    """
    rows = {}
    totals = {"slot_s": 0.0, "busy_s": 0.0, "actions": 0}
    for s in spawns:
        m = metadata.get(s.digest)
        if not m or s.cache_hit:
            continue
        n, sums = rows.get(s.mnemonic, (0, [0.0] * len(PHASES)))
        rows[s.mnemonic] = (n + 1, [a + max(0.0, m[end] - m[begin]) for a, (_, begin, end) in zip(sums, PHASES)])
        totals["slot_s"] += max(0.0, m["worker_completed"] - m["worker_start"])
        totals["busy_s"] += max(0.0, m["output_upload_completed"] - m["input_fetch_start"])
        totals["actions"] += 1
    order = {m: i for i, m in enumerate(cache_report_lib.STAGE_ORDER)}
    table = [dict({"stage": m, "actions": n}, **{name + "_mean_s": v / n for (name, _, _), v in zip(PHASES, sums)})
             for m, (n, sums) in sorted(rows.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))]
    return table, totals


def executor_seconds(result):
    """What the executor spent on a build: every action's run, input staging and output upload.

    From the worker's own timestamps where the executor reports them; else the
    build's wall (its execution phase: the analysis ran before, untimed) times
    the worker's jobs: its busy time, an upper bound (idle included).
    """
    if "executor_s" in result:
        return result["executor_s"]
    return result.get("remote_work_s", result["work_s"]) + result["worker_overhead_s"]


def _measure(runner, cluster, workers, staged, rep):
    name = "%s_w%d_r%d" % ("staged" if staged else "unstaged", workers, rep)
    log = os.path.join(runner.out, "logs", name + ".binlog")
    flags_ = ["--config=rbe", "--remote_executor=" + cluster.address, "--noremote_accept_cached",
              "--noremote_local_fallback", "--//cuda_rules:archs=" + FLAGS.archs,
              "--//cuda_rules:shipped_archs=" + FLAGS.archs] + FLAGS.bazel_flag
    if not staged:
        flags_.append("--//cuda_rules:staged=false")
    cluster.stop_bots()
    cluster.start_bots(workers, cores=sorted(os.sched_getaffinity(0))[:workers])
    runner.bazel("clean")
    runner.bazel("build", "--nobuild", *flags_, *FLAGS.targets)  # analysis, untimed
    load = os.getloadavg()[0]
    start = time.monotonic()
    runner.bazel("build", *flags_, "--execution_log_binary_file=" + log, *FLAGS.targets)
    wall = time.monotonic() - start
    spawns = cache_report_lib.read_log(log)
    graph = scaleout_lib.build_graph(spawns)
    busy = scaleout_lib.build_graph(spawns, "worker")
    chain, chain_actions = scaleout_lib.longest_chain(graph)
    result = {
        "name": name, "staged": staged, "workers": workers, "rep": rep, "log": log, "load_before": load,
        "bazel_wall_s": wall, "span_s": scaleout_lib.measured_span(spawns),
        "worker_span_s": scaleout_lib.measured_span(spawns, "worker"),
        "simulated_s": scaleout_lib.simulate(graph, workers).wall,
        "simulated_worker_s": scaleout_lib.simulate(busy, workers).wall,
        "queued_s": sum(s.queue_s for s in spawns), "worker_overhead_s": sum(s.worker_s for s in spawns),
        "work_s": graph.work, "longest_chain_s": chain,
        # What ran on the executor: not the actions Bazel ran itself (e.g. --strategy=CudaPlan=worker).
        "remote_work_s": sum(s.wall_s for s in spawns if s.runner == "remote" and not s.cache_hit),
        "local_actions": sum(1 for s in spawns if s.runner != "remote" and not s.cache_hit),
        "longest_chain": ["%s %s %s %.2f" % (a.mnemonic, a.target, a.arch, a.duration) for a in chain_actions],
        "runners": sorted({s.runner for s in spawns}),
        "stages": _stage_table(spawns),
        "executor": FLAGS.executor,
    }
    if cluster.metadata:
        metadata = cluster.action_metadata(sorted({(s.digest, s.digest_bytes) for s in spawns
                                                   if s.digest and not s.cache_hit and s.runner == "remote"}))
        result["phases"], totals = phase_table(spawns, metadata)
        result.update({"slot_s": totals["slot_s"], "bot_busy_s": totals["busy_s"],
                       "metadata_actions": totals["actions"]})
    if cluster.timestamps:
        # The worker, one action per job at a time, is busy at most the build's wall: an upper bound,
        # which also counts Bazel's own time per action.
        result["wall_executor_s"] = wall * workers
    else:
        # No worker timestamps: the log's times are the client's (queueing included), and so is
        # its span; the bound is all there is.
        result["executor_s"] = wall * workers
    print("%s: Bazel %.1f s; span %.1f s, simulated %.1f s; with the workers' overhead: span %.1f s, simulated "
          "%.1f s; work %.1f s, longest chain %.1f s, runners %s" % (
              name, wall, result["span_s"] or 0, result["simulated_s"], result["worker_span_s"] or 0,
              result["simulated_worker_s"], graph.work, chain, ", ".join(result["runners"])), flush=True)
    return result


def _tables(results):
    if any("executor_s" in r for r in results):
        return _wall_tables(results)
    lines = ["| build | workers | rep | Bazel wall | span: execution | simulated: execution | span: + worker overhead "
             "| simulated: + worker overhead | ÷ span | simulated from the 1-worker log (+ overhead) | work | "
             "worker overhead | queued | longest chain | load before |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    # The simulation replays a log's action times: only where they are the worker's own.
    one = {(r["staged"], r["rep"]): r for r in results if r["workers"] == 1}
    for r in results:
        base = one.get((r["staged"], r["rep"]))
        from_one = (scaleout_lib.simulate(scaleout_lib.build_graph(cache_report_lib.read_log(base["log"]), "worker"),
                                          r["workers"]).wall if base else None)
        lines.append("| %s | %d | %d | %.1f s | %.1f s | %.1f s | %.1f s | %.1f s | %.2f | %s | %.1f s | %.1f s "
                     "| %.1f s | %.1f s | %.2f |" % (
                         "staged" if r["staged"] else "staged = False", r["workers"], r["rep"], r["bazel_wall_s"],
                         r["span_s"] or 0, r["simulated_s"], r["worker_span_s"] or 0, r["simulated_worker_s"],
                         r["simulated_worker_s"] / r["worker_span_s"] if r["worker_span_s"] else 0,
                         "%.1f s" % from_one if from_one is not None else "-", r["work_s"], r["worker_overhead_s"],
                         r["queued_s"], r["longest_chain_s"], r["load_before"]))
    ratios = _side_by_side(results)
    if ratios:
        lines += ["", "Executor-seconds (work + worker overhead: Bazel's setup time, from the job's assignment to "
                  "its command's start, the run, and the outputs' upload), side by side: %s." % "; ".join(ratios)]
    for key, what in (("slot_s", "The bots' slots held (BuildGrid's job assigned -> result reported)"),
                      ("bot_busy_s", "The bots' own work (inputs staged -> outputs uploaded: the bot's timestamps)"),
                      ("wall_executor_s", "The build's wall times the jobs (an upper bound: it counts Bazel's own "
                       "time per action too)")):
        ratios = _side_by_side(results, key)
        if ratios:
            lines += ["", "%s, side by side: %s." % (what, "; ".join(ratios))]
    for r in results:
        lines += ["", "%s: per stage (queued = REAPI queued -> worker start; run = execution wall; the worker's "
                  "means per action: inputs staged, run, outputs uploaded)" % r["name"], "",
                  "| stage | actions | queued mean | queued max | run total | inputs | run | outputs |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for s in r["stages"]:
            lines.append("| %s | %d | %.2f s | %.2f s | %.1f s | %.3f s | %.3f s | %.3f s |" % (
                s["stage"], s["actions"], s["queued_mean_s"], s["queued_max_s"], s["run_s"],
                s.get("inputs_mean_s", 0.0), s.get("run_mean_s", 0.0), s.get("outputs_mean_s", 0.0)))
        if r.get("phases"):
            lines += ["", "%s: each action's time on the bot, mean per stage (%d actions with the executor's metadata): "
                      "pickup = job assigned -> the bot starts staging; inputs = staging; launch = staged -> the "
                      "command starts; run; capture = the command's end -> upload; outputs = upload; report = "
                      "uploaded -> BuildGrid has the result" % (r["name"], r.get("metadata_actions", 0)), "",
                      "| stage | actions | " + " | ".join(name for name, _, _ in PHASES) + " |",
                      "| --- | --- | " + " | ".join("---" for _ in PHASES) + " |"]
            for p in r["phases"]:
                lines.append("| %s | %d | %s |" % (p["stage"], p["actions"], " | ".join(
                    "%.3f s" % p[name + "_mean_s"] for name, _, _ in PHASES)))
        lines += ["", "longest chain: " + " -> ".join(r["longest_chain"])]
    return "\n".join(lines) + "\n"


def _side_by_side(results, key=None):
    """Each staged build's executor-seconds (or its result[key]) against `staged = false`'s with the same
    workers and rep."""
    value = (lambda r: r.get(key)) if key else executor_seconds
    unstaged = {(r["workers"], r["rep"]): r for r in results if not r["staged"]}
    ratios = []
    for r in results:
        base = unstaged.get((r["workers"], r["rep"])) if r["staged"] else None
        if base and value(r) and value(base):
            ratios.append("%d worker(s), rep %d: staged %.1f s ÷ staged = False %.1f s = **%.2fx**" % (
                r["workers"], r["rep"], value(r), value(base), value(r) / value(base)))
    return ratios


def _wall_tables(results):
    """The table of an executor that reports no worker timestamps: the log's times are the client's
    (queueing included), so spans, simulations and the per-stage split would mean nothing."""
    lines = ["| build | workers | rep | Bazel wall | executor-seconds (wall x jobs) | actions | load before |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append("| %s | %d | %d | %.1f s | %.1f s | %d | %.2f |" % (
            "staged" if r["staged"] else "staged = False", r["workers"], r["rep"], r["bazel_wall_s"],
            executor_seconds(r), sum(s["actions"] for s in r["stages"]), r["load_before"]))
    ratios = _side_by_side(results)
    if ratios:
        lines += ["", "Executor-seconds (the build's wall times the worker's jobs, an upper bound: the executor "
                  "reports no worker timestamps), side by side: %s." % "; ".join(ratios)]
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) > 1:
        raise app.UsageError("unexpected arguments: %s" % " ".join(argv[1:]))
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd()
    if not os.path.exists(os.path.join(workspace, "MODULE.bazel")):
        raise app.UsageError("run it with `bazel run` from the repository (no MODULE.bazel in %s)" % workspace)
    workers = sorted({int(w) for w in FLAGS.workers})
    all_cores = sorted(os.sched_getaffinity(0))
    if workers[0] < 1 or workers[-1] > len(all_cores):
        raise app.UsageError("--workers must be between 1 and this machine's %d cores (one core per bot)" % len(all_cores))
    out = os.path.abspath(FLAGS.out)
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    if FLAGS.bot_flag and FLAGS.executor != "buildgrid":
        raise app.UsageError("--bot_flag is for buildbox-worker (--executor=buildgrid)")
    if FLAGS.executor == "remote_worker":
        cluster = remote_worker_cluster.RemoteWorkerCluster(os.path.join(out, "cluster"))
    else:
        prefix, bgd = rbe_cluster.install(FLAGS.cache_dir)
        cluster = rbe_cluster.Cluster(os.path.join(out, "cluster"), prefix, bgd)
        cluster.bot_flags = FLAGS.bot_flag
    # Only for bots that report their own timestamps: RemoteWorker's executor-seconds are the
    # build's wall, which Bazel pinned to fewer cores would only lengthen.
    server_cores = all_cores[workers[-1]:] if FLAGS.dedicated_cores and FLAGS.executor == "buildgrid" else []
    if server_cores:
        print("bots on cores %s; Bazel, BuildGrid and PostgreSQL on %s" % (
            ",".join(map(str, all_cores[:workers[-1]])), ",".join(map(str, server_cores))), flush=True)
    runner = Runner(out, workspace, server_cores)
    results = []
    try:
        cluster.start(server_cores)
        variants = [(w, True) for w in workers] + ([(w, False) for w in workers] if FLAGS.unstaged else [])
        for rep in range(FLAGS.reps):
            for w, staged in (variants if rep % 2 == 0 else variants[::-1]):
                results.append(_measure(runner, cluster, w, staged, rep))
    finally:
        cluster.stop()
        runner.bazel("shutdown", check=False)
    results.sort(key=lambda r: (not r["staged"], r["workers"], r["rep"]))
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=2, sort_keys=True)
    text = _tables(results)
    curves = [scaleout_lib.curve("staged" if staged else "staged=false",
                                 cache_report_lib.read_log(next(r["log"] for r in results
                                                                if r["staged"] == staged and r["workers"] == 1)))
              for staged in ([True, False] if FLAGS.unstaged else [True])
              if 1 in workers and cluster.timestamps]
    if curves:
        text += "\nsimulated from the 1-worker logs:\n\n```\n" + scaleout_lib.format_curves(curves, "table") + "```\n"
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    app.run(main)
