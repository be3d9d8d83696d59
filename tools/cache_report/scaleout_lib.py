"""Scale-out of a build, simulated from its execution log.

The action graph is rebuilt from the log alone: an edge runs from the spawn
that lists a path among its outputs to every spawn that lists that path (or a
file under it, for a directory output) among its inputs. Every spawn keeps the
duration the log recorded for it (execution wall time).

`simulate` list-schedules that graph on N identical executors: whenever an
executor is free, it starts the next ready action (all of whose producers have
finished) in priority order, and the action holds the executor for its
recorded duration. Nothing else is modelled: no input upload, no output
download, no scheduler latency. So the simulated wall time is what the
recorded work allows, and two bounds hold for any N: wall >= total work / N
and wall >= the longest chain (the critical path, the sum of durations along
the most expensive path through the graph). For N = 1 the wall is the total
work; once N is at least the graph's width, it is the longest chain.

Durations:
  execution      the spawn's execution wall time (what the tool itself took);
  worker         for remote execution, plus the worker's own overhead per
                 action (staging the inputs, uploading the outputs: the log's
                 setup and process-outputs times), i.e. how long the action
                 kept its worker busy. Neither includes the scheduler's
                 latency or Bazel's uploads and downloads.

Priorities:
  fifo           the action that became ready first (ties: log order), as
                 Bazel hands ready actions to its executors;
  critical_path  the action with the longest chain below it first (a
                 scheduler that knew every duration in advance).
"""

import collections
import dataclasses
import csv
import heapq
import io
import json

from tools.cache_report import cache_report_lib

PRIORITIES = ("fifo", "critical_path")
DURATIONS = ("execution", "worker")
# The executor counts of the published curve: 1, 2, 4, ..., 1024.
DEFAULT_EXECUTORS = tuple(2 ** k for k in range(11))
# "Flattened": the wall is within this fraction of the longest chain.
FLAT_TOLERANCE = 0.05


@dataclasses.dataclass
class Action:
    index: int  # position in the log
    mnemonic: str
    target: str
    arch: str
    duration: float  # recorded execution wall time, seconds
    cache_hit: bool
    deps: tuple  # indices of the actions whose outputs this one reads


@dataclasses.dataclass
class Graph:
    actions: list
    succs: list  # succs[i]: indices of the actions that read an output of action i
    order: list  # a topological order (every action after its deps)

    @property
    def work(self):
        return sum(a.duration for a in self.actions)


def build_graph(spawns, durations="execution"):
    """The action graph of a log's spawns (cache_report_lib.Spawn), linked by the files they pass."""
    if durations not in DURATIONS:
        raise ValueError("durations must be one of %s, not %r" % (", ".join(DURATIONS), durations))
    if not spawns:
        raise cache_report_lib.LogError("the log holds no spawns: nothing to simulate")
    producer = {}
    for i, s in enumerate(spawns):
        for path in s.outputs:
            j = producer.get(path)
            if j is not None and j != i:
                raise cache_report_lib.LogError(
                    "%s is an output of two spawns (entries %d and %d, %s and %s): give the log of one build"
                    % (path, j + 1, i + 1, spawns[j].mnemonic, s.mnemonic))
            producer[path] = i
    memo = {}

    def find(path):
        # A file inside a directory output (tree artifact) is produced by the
        # directory's producer.
        if path in memo:
            return memo[path]
        j = producer.get(path)
        cut = path.rfind("/")
        probe = path
        while j is None and cut > 0:
            probe = probe[:cut]
            j = producer.get(probe)
            cut = probe.rfind("/")
        memo[path] = j
        return j

    actions = []
    succs = [[] for _ in spawns]
    for i, s in enumerate(spawns):
        deps = sorted({j for j in (find(p) for p in s.inputs) if j is not None and j != i})
        for j in deps:
            succs[j].append(i)
        duration = s.wall_s + (s.worker_s if durations == "worker" else 0.0)
        actions.append(Action(i, s.mnemonic, s.target, s.arch, max(duration, 0.0), s.cache_hit, tuple(deps)))
    indeg = [len(a.deps) for a in actions]
    order = []
    ready = collections.deque(i for i, d in enumerate(indeg) if d == 0)
    while ready:
        i = ready.popleft()
        order.append(i)
        for k in succs[i]:
            indeg[k] -= 1
            if indeg[k] == 0:
                ready.append(k)
    if len(order) != len(actions):
        stuck = [actions[i] for i, d in enumerate(indeg) if d > 0][:3]
        raise cache_report_lib.LogError("the spawns' inputs and outputs form a cycle (through %s): not one build's log"
                                        % ", ".join("%s of %s" % (a.mnemonic, a.target) for a in stuck))
    return Graph(actions, succs, order)


def bottom_levels(graph):
    """bottom[i]: the longest chain from action i to the end of the build, its own duration included."""
    bottom = [0.0] * len(graph.actions)
    for i in reversed(graph.order):
        bottom[i] = graph.actions[i].duration + max((bottom[k] for k in graph.succs[i]), default=0.0)
    return bottom


def longest_chain(graph):
    """(length in seconds, [actions along the longest chain, first to last])."""
    finish = [0.0] * len(graph.actions)
    via = [None] * len(graph.actions)
    for i in graph.order:
        a = graph.actions[i]
        best = None
        for j in a.deps:
            if best is None or finish[j] > finish[best] or (finish[j] == finish[best] and j < best):
                best = j
        finish[i] = a.duration + (finish[best] if best is not None else 0.0)
        via[i] = best
    end = max(range(len(finish)), key=lambda i: (finish[i], -i))
    chain = []
    i = end
    while i is not None:
        chain.append(graph.actions[i])
        i = via[i]
    return finish[end], chain[::-1]


@dataclasses.dataclass
class Schedule:
    executors: int
    wall: float
    start: list  # start[i]: when action i started
    ready: list  # ready[i]: when its last dep finished (0 for the first ones)

    def waits_by_stage(self, graph):
        """{mnemonic: (actions, total wait s, max wait s)}: time ready but waiting for an executor."""
        out = {}
        for a in graph.actions:
            wait = self.start[a.index] - self.ready[a.index]
            n, total, worst = out.get(a.mnemonic, (0, 0.0, 0.0))
            out[a.mnemonic] = (n + 1, total + wait, max(worst, wait))
        return out


def simulate(graph, executors, priority="fifo"):
    """List-schedules the graph on `executors` identical executors; returns the Schedule."""
    if executors < 1:
        raise ValueError("executors must be >= 1, not %d" % executors)
    if priority not in PRIORITIES:
        raise ValueError("priority must be one of %s, not %r" % (", ".join(PRIORITIES), priority))
    actions = graph.actions
    bottom = bottom_levels(graph) if priority == "critical_path" else None

    def key(i, ready_at):
        if priority == "fifo":
            return (ready_at, i)
        return (-bottom[i], i)

    indeg = [len(a.deps) for a in actions]
    start = [0.0] * len(actions)
    ready_at = [0.0] * len(actions)
    ready = [(key(i, 0.0), i) for i, d in enumerate(indeg) if d == 0]
    heapq.heapify(ready)
    running = []  # (finish, index)
    now = 0.0
    done = 0
    while done < len(actions):
        while ready and len(running) < executors:
            _, i = heapq.heappop(ready)
            start[i] = now
            heapq.heappush(running, (now + actions[i].duration, i))
        now, i = heapq.heappop(running)
        finished = [i]
        while running and running[0][0] == now:  # everything that ends at the same instant
            finished.append(heapq.heappop(running)[1])
        for i in sorted(finished):
            done += 1
            for k in graph.succs[i]:
                indeg[k] -= 1
                if indeg[k] == 0:
                    ready_at[k] = now
                    heapq.heappush(ready, (key(k, now), k))
    return Schedule(executors, now, start, ready_at)


@dataclasses.dataclass
class Curve:
    name: str
    actions: int
    cache_hits: int
    work: float
    chain: float
    chain_actions: list
    walls: dict  # executors -> simulated wall s

    @property
    def flat_at(self):
        """The fewest executors whose wall is within FLAT_TOLERANCE of the longest chain (None: not in the curve)."""
        for n in sorted(self.walls):
            if self.walls[n] <= self.chain * (1 + FLAT_TOLERANCE) + 1e-9:
                return n
        return None


def curve(name, spawns, executors=DEFAULT_EXECUTORS, priority="fifo", durations="execution"):
    graph = build_graph(spawns, durations)
    length, chain = longest_chain(graph)
    walls = {n: simulate(graph, n, priority).wall for n in executors}
    return Curve(name, len(graph.actions), sum(a.cache_hit for a in graph.actions), graph.work, length, chain, walls)


def measured_span(spawns, durations="execution"):
    """Seconds from the first spawn's start to the last one's end, from the log's start times (None if not logged).

    durations="worker": from the first worker's input staging to the last one's output upload.
    """
    worker = durations == "worker"
    times = [(s.start_s - (s.setup_s if worker else 0.0), s.start_s + s.wall_s + (s.outputs_s if worker else 0.0))
             for s in spawns if s.start_s is not None and not s.cache_hit]
    if not times:
        return None
    return max(end for _, end in times) - min(start for start, _ in times)


def queue_by_stage(spawns):
    """{mnemonic: (spawns, total queued s, max queued s)} from the log's queue times (remote execution)."""
    out = {}
    for s in spawns:
        n, total, worst = out.get(s.mnemonic, (0, 0.0, 0.0))
        out[s.mnemonic] = (n + 1, total + s.queue_s, max(worst, s.queue_s))
    return out


def format_curves(curves, fmt):
    """The curves side by side: per executor count, each log's simulated wall and speed-up over 1 executor."""
    counts = sorted(set().union(*(c.walls for c in curves)))
    if fmt == "json":
        return json.dumps([{
            "name": c.name, "actions": c.actions, "cache_hits": c.cache_hits, "work_s": round(c.work, 3),
            "longest_chain_s": round(c.chain, 3), "flat_at": c.flat_at,
            "longest_chain": [{"mnemonic": a.mnemonic, "target": a.target, "arch": a.arch, "s": round(a.duration, 3)}
                              for a in c.chain_actions],
            "walls": [{"executors": n, "wall_s": round(c.walls[n], 3)} for n in sorted(c.walls)],
        } for c in curves], indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["executors"] + [c.name + "_wall_s" for c in curves])
        for n in counts:
            writer.writerow([n] + ["%.3f" % c.walls[n] if n in c.walls else "" for c in curves])
        return out.getvalue()
    lines = []
    for c in curves:
        lines.append("%s: %d actions (%d cache hits), %.2f s of work, longest chain %.2f s; %s" % (
            c.name, c.actions, c.cache_hits, c.work, c.chain,
            "flat (within %d %% of the longest chain) from %d executors" % (100 * FLAT_TOLERANCE, c.flat_at)
            if c.flat_at else "not flat within %d executors" % max(c.walls)))
    header = ["executors"]
    for c in curves:
        header += [c.name + " wall s", "speed-up"]
    if len(curves) == 2:
        header.append("%s / %s" % (curves[0].name, curves[1].name))
    table = [header]
    for n in counts:
        row = [str(n)]
        for c in curves:
            wall = c.walls.get(n)
            row += ["%.2f" % wall if wall is not None else "", "%.2fx" % (c.walls[min(c.walls)] / wall) if wall else ""]
        if len(curves) == 2 and n in curves[0].walls and n in curves[1].walls and curves[1].walls[n]:
            row.append("%.2fx" % (curves[0].walls[n] / curves[1].walls[n]))
        table.append(row)
    widths = [max(len(r[i]) if i < len(r) else 0 for r in table) for i in range(len(header))]
    lines.append("")
    for k, row in enumerate(table):
        lines.append("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    for c in curves:
        lines.append("")
        lines.append("longest chain of %s (%.2f s):" % (c.name, c.chain))
        for a in c.chain_actions:
            lines.append("  %8.2f s  %s %s%s" % (a.duration, a.mnemonic, a.target, " " + a.arch if a.arch != "-" else ""))
    return "\n".join(lines) + "\n"


def format_waits(graph, schedule):
    """Per stage: how long its actions waited, ready, for an executor in the simulated schedule."""
    lines = ["simulated queueing at %d executors (ready -> started):" % schedule.executors]
    for mnemonic, (n, total, worst) in sorted(schedule.waits_by_stage(graph).items()):
        lines.append("  %-22s %4d actions  mean %7.2f s  max %7.2f s" % (mnemonic, n, total / n, worst))
    return "\n".join(lines) + "\n"
