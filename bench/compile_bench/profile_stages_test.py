"""profile_stages.py on a small trace: actions on two threads, the events nested in them, and one outside any action."""

import gzip
import json
import os
import tempfile
import unittest

from bench.compile_bench import profile_stages


def _x(tid, ts_ms, dur_ms, name, cat="general information", **args):
    e = {"ph": "X", "tid": tid, "ts": ts_ms * 1000, "dur": dur_ms * 1000, "name": name, "cat": cat}
    if args:
        e["args"] = args
    return e


EVENTS = [
    {"ph": "M", "tid": 1, "name": "thread_name", "args": {"name": "skyframe-evaluator-1"}},
    # Thread 1: a sandboxed CudaCicc action (100 ms: 70 process, 10 sandbox, 2 input tree).
    _x(1, 0, 100, "Compiling device code of //a:a", cat="action processing", mnemonic="CudaCicc"),
    _x(1, 1, 10, "sandbox.createFileSystem"),
    _x(1, 11, 2, "MerkleTree.build(ActionInput)"),
    _x(1, 20, 70, "subprocess.run"),
    # ...then a worker action (30 ms: 12 in the worker).
    _x(1, 200, 30, "Planning nvcc stages of //a:a", cat="action processing", mnemonic="CudaPlan"),
    _x(1, 205, 12, "Worker #3 working"),
    # Thread 2: another CudaCicc action (50 ms: 40 process), and a process outside any action.
    _x(2, 10, 50, "Compiling device code of //b:b", cat="action processing", mnemonic="CudaCicc"),
    _x(2, 15, 40, "subprocess.run"),
    _x(2, 500, 40, "subprocess.run"),
]


class ProfileStagesTest(unittest.TestCase):
    def test_breakdown(self):
        rows = profile_stages.breakdown(EVENTS)
        self.assertEqual(sorted(rows), ["CudaCicc", "CudaPlan"])
        cicc = rows["CudaCicc"]
        self.assertEqual(cicc["actions"], 2)
        self.assertAlmostEqual(cicc["total"], 0.150)
        self.assertAlmostEqual(cicc["process"], 0.110)
        self.assertAlmostEqual(cicc["sandbox setup"], 0.010)
        self.assertAlmostEqual(cicc["input tree"], 0.002)
        self.assertAlmostEqual(cicc["other"], 0.028)
        plan = rows["CudaPlan"]
        self.assertAlmostEqual(plan["worker"], 0.012)
        self.assertAlmostEqual(plan["other"], 0.018)

    def test_per_action_times_and_their_medians(self):
        per_action = {}
        rows = profile_stages.breakdown(EVENTS, per_action)
        self.assertEqual(len(per_action["CudaCicc"]), rows["CudaCicc"]["actions"])
        for column in ("total", "process", "sandbox setup", "input tree"):
            self.assertAlmostEqual(sum(a.get(column, 0.0) for a in per_action["CudaCicc"]), rows["CudaCicc"][column])
        table = profile_stages.median_table(per_action)
        self.assertIn("| CudaCicc | 2 | 75 |", table)

    def test_table_and_main_read_a_gzipped_profile(self):
        table = profile_stages.table(profile_stages.breakdown(EVENTS))
        self.assertIn("| CudaCicc | 2 | 0.15 | 0.11 | 0.01 | 0.00 | 0.00 | 0.03 | 75.0 |", table)
        self.assertIn("| all | 3 | 0.18 |", table)
        path = os.path.join(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")), "p.json.gz")
        with gzip.open(path, "wt") as f:
            json.dump({"traceEvents": EVENTS}, f)
        self.assertEqual(profile_stages.main([path]), 0)
        empty = path.replace("p.json", "empty.json")
        with gzip.open(empty, "wt") as f:
            json.dump({"traceEvents": []}, f)
        self.assertEqual(profile_stages.main([empty]), 1)


if __name__ == "__main__":
    unittest.main()
