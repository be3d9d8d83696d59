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

    def test_from_the_wall_without_them(self):
        # RemoteWorker: the log's times are the client's; the build's wall times the jobs bounds what it spent.
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


if __name__ == "__main__":
    unittest.main()
