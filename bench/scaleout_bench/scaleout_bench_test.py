"""scaleout_bench's side-by-side report: executor-seconds from worker timestamps, or from the build's wall where there are none."""

import unittest

from bench.scaleout_bench import scaleout_bench


def _result(staged, **fields):
    out = {"name": "x", "staged": staged, "workers": 1, "rep": 0, "log": "", "load_before": 0.0, "bazel_wall_s": 10.0,
           "span_s": 9.0, "worker_span_s": 9.5, "simulated_s": 8.0, "simulated_worker_s": 9.0, "queued_s": 0.0,
           "worker_overhead_s": 2.0, "work_s": 6.0, "longest_chain_s": 1.0, "longest_chain": [], "runners": ["remote"],
           "stages": [{"stage": "CudaCicc", "actions": 2, "queued_mean_s": 0.0, "queued_max_s": 0.0, "run_s": 4.0,
                       "inputs_mean_s": 0.4, "run_mean_s": 2.0, "outputs_mean_s": 0.0}]}
    out.update(fields)
    return out


class ExecutorSecondsTest(unittest.TestCase):
    def test_from_the_workers_timestamps(self):
        self.assertEqual(scaleout_bench.executor_seconds(_result(True)), 8.0)

    def test_only_what_ran_on_the_executor(self):
        # --config=rbe plans on Bazel's machine: the plans' time is Bazel's, not the executor's.
        self.assertEqual(scaleout_bench.executor_seconds(_result(True, remote_work_s=5.0)), 7.0)

    def test_the_walls_bound_beside_the_timestamps(self):
        # RemoteWorker with reapi.py's stamps: executor-seconds from them, the build's wall x jobs printed beside.
        text = scaleout_bench._tables([_result(True, workers=2, wall_executor_s=24.0),
                                       _result(False, workers=2, worker_overhead_s=1.0, wall_executor_s=20.0)])
        self.assertIn("staged 8.0 s ÷ staged = False 7.0 s = **1.14x**", text)
        self.assertIn("The build's wall times the jobs (an upper bound", text)
        self.assertIn("staged 24.0 s ÷ staged = False 20.0 s = **1.20x**", text)

    def test_from_the_wall_without_them(self):
        # An executor without worker timestamps: the log's times are the client's; the build's wall times the jobs bounds what it spent.
        self.assertEqual(scaleout_bench.executor_seconds(_result(True, executor_s=18.0)), 18.0)

    def test_the_report_says_which_and_splits_per_stage_only_with_timestamps(self):
        text = scaleout_bench._tables([_result(True, executor_s=18.0, log="s"), _result(False, executor_s=12.0, log="u")])
        self.assertIn("the build's wall times the worker's jobs", text)
        self.assertIn("staged 18.0 s ÷ staged = False 12.0 s = **1.50x**", text)
        self.assertNotIn("per stage", text)
        # Client-side times mean nothing without the worker's: no span or simulated column.
        self.assertNotIn("span", text)
        self.assertNotIn("simulated", text)
        self.assertIn("| staged | 1 | 0 | 10.0 s | 18.0 s | 2 |", text)
        # (2 workers: no 1-worker log to simulate from)
        text = scaleout_bench._tables([_result(True, workers=2), _result(False, workers=2, worker_overhead_s=1.0)])
        self.assertIn("work + worker overhead", text)
        self.assertIn("staged 8.0 s ÷ staged = False 7.0 s = **1.14x**", text)
        self.assertIn("| CudaCicc | 2 |", text)


class PhaseTableTest(unittest.TestCase):
    def test_splits_each_actions_time_on_the_bot(self):
        from tools.cache_report import cache_report_lib

        def spawn(mnemonic, digest, cache_hit=False):
            return cache_report_lib.Spawn(mnemonic=mnemonic, outputs=[], cache_hit=cache_hit, runner="remote",
                                          wall_s=0.0, target="//x", digest=digest)

        def meta(t0):
            # assigned, +0.25 picked up, +0.01 staged, +0.01 launched, 1.0 run, +0.02, +0.03 uploaded, +0.04 reported
            ts = [t0, t0 + 0.25, t0 + 0.26, t0 + 0.27, t0 + 1.27, t0 + 1.29, t0 + 1.32, t0 + 1.36]
            names = ["worker_start", "input_fetch_start", "input_fetch_completed", "execution_start",
                     "execution_completed", "output_upload_start", "output_upload_completed", "worker_completed"]
            return dict(zip(names, ts), queued=t0 - 1.0)

        spawns = [spawn("CudaCicc", "a"), spawn("CudaCicc", "b"), spawn("CudaPtxas", "c", cache_hit=True),
                  spawn("CudaPlan", "d")]  # d: no metadata (ran on the client)
        table, totals = scaleout_bench.phase_table(spawns, {"a": meta(100.0), "b": meta(200.0), "c": meta(300.0)})
        self.assertEqual([r["stage"] for r in table], ["CudaCicc"])
        row = table[0]
        self.assertEqual(row["actions"], 2)
        for name, want in (("pickup", 0.25), ("inputs", 0.01), ("launch", 0.01), ("run", 1.0), ("capture", 0.02),
                           ("outputs", 0.03), ("report", 0.04)):
            self.assertAlmostEqual(row[name + "_mean_s"], want, places=6)
        self.assertAlmostEqual(totals["slot_s"], 2 * 1.36, places=6)
        self.assertAlmostEqual(totals["busy_s"], 2 * 1.07, places=6)
        self.assertEqual(totals["actions"], 2)
        # (2 workers: no 1-worker log to simulate from)
        text = scaleout_bench._tables([_result(True, workers=2, slot_s=20.0, bot_busy_s=9.0, phases=table),
                                       _result(False, workers=2, slot_s=10.0, bot_busy_s=8.0)])
        self.assertIn("The bots' slots held (BuildGrid's job assigned -> result reported), side by side: "
                      "2 worker(s), rep 0: staged 20.0 s ÷ staged = False 10.0 s = **2.00x**", text)
        self.assertIn("staged 9.0 s ÷ staged = False 8.0 s = **1.12x**", text)
        self.assertIn("| CudaCicc | 2 | 0.250 s | 0.010 s | 0.010 s | 1.000 s | 0.020 s | 0.030 s | 0.040 s |", text)


if __name__ == "__main__":
    unittest.main()
