"""scaleout_lib on small hand-made logs whose schedules are worked out by hand below."""

import json
import os
import tempfile
import unittest

from tools.cache_report import cache_report_lib
from tools.cache_report import execlog_pb2
from tools.cache_report import scaleout_lib as lib

OUT = "bazel-out/k8-fastbuild/bin/pkg/"


def spawn(mnemonic, seconds, outputs, inputs=(), **metrics):
    m = {"executionWallTime": "%gs" % seconds}
    m.update(metrics)
    return {
        "inputs": [{"path": OUT + i} for i in inputs] + [{"path": "external/toolkit/bin/nvcc"}],
        "commandArgs": ["/bin/sh", "x.sh"],
        "mnemonic": mnemonic,
        "listedOutputs": [OUT + o for o in outputs],
        "cacheHit": False,
        "runner": "remote",
        "metrics": m,
        "targetLabel": "//pkg:t",
    }


def read(entries):
    fd, path = tempfile.mkstemp(dir=os.environ.get("TEST_TMPDIR"))
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(json.dumps(e) for e in entries))
    return cache_report_lib.read_log(path)


# A (2 s) -> B (3 s) -> D (1 s) and A -> C (1 s) -> D.
DIAMOND = [
    spawn("A", 2, ["a"]),
    spawn("B", 3, ["b"], ["a"]),
    spawn("C", 1, ["c"], ["a"]),
    spawn("D", 1, ["d"], ["b", "c"]),
]

# Y1 (2 s), Y2 (2 s) independent; X1 -> X2 -> X3 (1 s each); in this log order.
CHAIN_AND_TWO = [
    spawn("Y", 2, ["y1"]),
    spawn("Y", 2, ["y2"]),
    spawn("X", 1, ["x1"]),
    spawn("X", 1, ["x2"], ["x1"]),
    spawn("X", 1, ["x3"], ["x2"]),
]


class ScaleoutTest(unittest.TestCase):
    def test_graph_links_producers_to_consumers(self):
        graph = lib.build_graph(read(DIAMOND))
        self.assertEqual([a.deps for a in graph.actions], [(), (0,), (0,), (1, 2)])
        self.assertEqual(graph.succs, [[1, 2], [3], [3], []])
        self.assertEqual(graph.work, 7)

    def test_diamond_by_hand(self):
        graph = lib.build_graph(read(DIAMOND))
        # 1 executor: everything in a row, 7 s.
        self.assertEqual(lib.simulate(graph, 1).wall, 7)
        # 2: A 0-2; B 2-5 and C 2-3 side by side; D 5-6.
        two = lib.simulate(graph, 2)
        self.assertEqual(two.wall, 6)
        self.assertEqual(two.start, [0, 2, 2, 5])
        self.assertEqual(lib.simulate(graph, 64).wall, 6)
        length, chain = lib.longest_chain(graph)
        self.assertEqual(length, 6)
        self.assertEqual([a.mnemonic for a in chain], ["A", "B", "D"])

    def test_waits_by_stage(self):
        graph = lib.build_graph(read(DIAMOND))
        # 1 executor, fifo: B and C ready at 2, B (first in the log) runs 2-5,
        # C waits 3 s and runs 5-6; D is ready at 6 and starts at once.
        waits = lib.simulate(graph, 1).waits_by_stage(graph)
        self.assertEqual(waits, {"A": (1, 0, 0), "B": (1, 0, 0), "C": (1, 3, 3), "D": (1, 0, 0)})

    def test_priorities_by_hand(self):
        graph = lib.build_graph(read(CHAIN_AND_TWO))
        # fifo, 2 executors: Y1 and Y2 first (ready at 0, earlier in the log),
        # then the chain X1 2-3, X2 3-4, X3 4-5.
        self.assertEqual(lib.simulate(graph, 2, "fifo").wall, 5)
        # critical_path: X1 (3 s below it) and Y1 at 0; at 1 X2 and Y2 tie
        # at 2 s below them and Y2 comes first in the log: Y2 1-3; at 2 Y1
        # ends, X2 2-3, X3 3-4.
        cp = lib.simulate(graph, 2, "critical_path")
        self.assertEqual(cp.wall, 4)
        self.assertEqual(cp.start, [0, 1, 0, 2, 3])
        with self.assertRaises(ValueError):
            lib.simulate(graph, 2, "random")
        with self.assertRaises(ValueError):
            lib.simulate(graph, 0)

    def test_curve_flattens_at_the_longest_chain(self):
        c = lib.curve("diamond", read(DIAMOND), executors=(1, 2, 4))
        self.assertEqual(c.walls, {1: 7, 2: 6, 4: 6})
        self.assertEqual(c.flat_at, 2)
        c = lib.curve("chain", read(CHAIN_AND_TWO), executors=(1, 2))
        self.assertEqual((c.walls, c.chain), ({1: 7, 2: 5}, 3))
        self.assertIsNone(c.flat_at)  # 5 s is not within 5 % of 3 s
        table = lib.format_curves([lib.curve("diamond", read(DIAMOND), executors=(1, 2))], "table")
        self.assertIn("flat (within 5 % of the longest chain) from 2 executors", table)
        self.assertIn("longest chain of diamond (6.00 s):", table)
        self.assertEqual(json.loads(lib.format_curves([c], "json"))[0]["walls"][1], {"executors": 2, "wall_s": 5})
        self.assertEqual(lib.format_curves([c], "csv").splitlines(), ["executors,chain_wall_s", "1,7.000", "2,5.000"])

    def test_bounds_hold_on_a_larger_graph(self):
        # 60 actions, each reading up to 3 earlier ones (a fixed pseudo-random graph).
        entries, seed = [], 7
        for i in range(60):
            deps = []
            for _ in range(3):
                seed = (seed * 1103515245 + 12345) % 2 ** 31
                if i and seed % 3:
                    deps.append("o%d" % (seed % i))
            entries.append(spawn("S%d" % (i % 4), 0.5 + (seed % 7), ["o%d" % i], sorted(set(deps))))
        graph = lib.build_graph(read(entries))
        length, _ = lib.longest_chain(graph)
        self.assertAlmostEqual(lib.simulate(graph, 1).wall, graph.work)
        self.assertAlmostEqual(lib.simulate(graph, 60).wall, length)
        for n in (2, 3, 4, 8):
            for priority in lib.PRIORITIES:
                s = lib.simulate(graph, n, priority)
                self.assertGreaterEqual(s.wall + 1e-9, max(graph.work / n, length))
                # Graham's bound for any list schedule.
                self.assertLessEqual(s.wall, graph.work / n + length + 1e-9)
                for a in graph.actions:  # nothing starts before its inputs exist
                    for d in a.deps:
                        self.assertGreaterEqual(s.start[a.index] + 1e-9, s.start[d] + graph.actions[d].duration)

    def test_a_file_inside_a_directory_output(self):
        graph = lib.build_graph(read([spawn("Tree", 1, ["dir"]), spawn("Use", 1, ["u"], ["dir/sub/f.h"])]))
        self.assertEqual(graph.actions[1].deps, (0,))

    def test_bad_logs_are_clear_errors(self):
        with self.assertRaisesRegex(cache_report_lib.LogError, "output of two spawns .*one build"):
            lib.build_graph(read([spawn("A", 1, ["a"]), spawn("B", 1, ["a"])]))
        with self.assertRaisesRegex(cache_report_lib.LogError, "cycle"):
            lib.build_graph(read([spawn("A", 1, ["a"], ["b"]), spawn("B", 1, ["b"], ["a"])]))
        with self.assertRaisesRegex(cache_report_lib.LogError, "no spawns"):
            lib.build_graph([])

    def test_recorded_span_and_queueing(self):
        spawns = read([
            spawn("A", 2, ["a"], startTime="2026-11-24T10:00:00.500Z", queueTime="0.25s"),
            spawn("B", 3, ["b"], ["a"], startTime="2026-11-24T10:00:03Z", queueTime="1.5s"),
            spawn("B", 1, ["c"], ["a"], startTime="2026-11-24T10:00:02.5Z", queueTime="0.5s"),
        ])
        self.assertEqual(lib.measured_span(spawns), 5.5)  # 10:00:00.5 to 10:00:06
        spawns[0].setup_s, spawns[1].outputs_s = 0.25, 0.5
        self.assertEqual(lib.measured_span(spawns, "worker"), 6.25)  # 10:00:00.25 to 10:00:06.5
        self.assertEqual(lib.queue_by_stage(spawns), {"A": (1, 0.25, 0.25), "B": (2, 2.0, 1.5)})

    def test_worker_durations_add_the_workers_overhead(self):
        spawns = read([spawn("A", 2, ["a"], setupTime="0.5s", processOutputsTime="0.25s"),
                       spawn("B", 1, ["b"], ["a"], setupTime="1s")])
        self.assertEqual(lib.simulate(lib.build_graph(spawns), 1).wall, 3)
        self.assertEqual(lib.simulate(lib.build_graph(spawns, "worker"), 1).wall, 4.75)
        with self.assertRaises(ValueError):
            lib.build_graph(spawns, "cpu")

    def test_binary_log_carries_start_and_queue_times(self):
        msg = execlog_pb2.SpawnExec(command_args=["x"], listed_outputs=[OUT + "a"], mnemonic="A")
        msg.metrics.execution_wall_time.FromNanoseconds(2 * 10 ** 9)
        msg.metrics.queue_time.FromNanoseconds(750 * 10 ** 6)
        msg.metrics.setup_time.FromNanoseconds(100 * 10 ** 6)
        msg.metrics.process_outputs_time.FromNanoseconds(150 * 10 ** 6)
        msg.metrics.start_time.FromNanoseconds(1764000000 * 10 ** 9 + 250 * 10 ** 6)
        body = msg.SerializeToString()
        fd, path = tempfile.mkstemp(dir=os.environ.get("TEST_TMPDIR"))
        with os.fdopen(fd, "wb") as f:
            f.write(bytes([len(body)]) + body)
        [s] = cache_report_lib.read_log(path)
        self.assertEqual((s.wall_s, s.queue_s, s.start_s, s.worker_s), (2.0, 0.75, 1764000000.25, 0.25))


if __name__ == "__main__":
    unittest.main()
