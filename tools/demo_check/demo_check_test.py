"""demo_check on a healthy demo's output and on the lines it must catch."""

import unittest

from tools.demo_check import demo_check

HEALTHY = """\
[bazelw] ready: /root/.cache/rules_cuda_stages/bazelw/root
Starting local Bazel server and connecting to it...
== 1. CI: bazel build @rules_cuda_stages_examples//...   (the shipped set: sm_75,sm_80,sm_86,sm_90,compute_90)
== 2. developer: bazel clean, then bazel build --@rules_cuda_stages//cuda_rules:archs=sm_90 (CI's disk cache)

== developer build (sm_90): what ran, what came from CI's cache
stage                 arch        actions  cache hits  remote  disk  executed  exec s  saved s
--------------------  ----------  -------  ----------  ------  ----  --------  ------  -------
CudaPlan              -                 5           0       0     0         5    0.75     0.00
CudaCicc              compute_90        5           5       0     5         0    0.00     0.72
CudaPtxas             sm_90             5           5       0     5         0    0.00     0.51
--------------------  ----------  -------  ----------  ------  ----  --------  ------  -------
total                                  15          10       0    10         5    0.75     1.23

== summary (one run; wall times on a loaded machine are indicative only)
device stages (CudaCicc, CudaPtxas), all examples (CUB included): 100.0 % of their time served from CI's cache (10 of 10 actions)
"""


class DemoCheckTest(unittest.TestCase):
    def test_a_healthy_output_passes(self):
        self.assertEqual(demo_check.problems(HEALTHY), [])

    def test_the_lines_seen_on_11_28_are_caught(self):
        for line in [
            "WARNING: Option 'host_javabase' is deprecated",
            "INFO: Error while reading response from multiplexer process for CudaPlan: java.io.IOException: "
            "Could not parse json work request correctly",
            "Traceback (most recent call last):",
            "ERROR: Build did NOT complete successfully",
        ]:
            found = demo_check.problems(HEALTHY + line + "\n")
            self.assertEqual(len(found), 1, found)
            self.assertIn(line[:30], found[0])

    def test_a_summary_naming_a_stage_that_did_not_run_is_caught(self):
        text = HEALTHY.replace("device stages (CudaCicc, CudaPtxas)", "device stages (CudaClangDevice, CudaCicc, CudaPtxas)")
        found = demo_check.problems(text)
        self.assertEqual(len(found), 1, found)
        self.assertIn("CudaClangDevice", found[0])

    def test_no_summary_is_a_problem(self):
        self.assertTrue(demo_check.problems("== 1. CI: bazel build\n"))


if __name__ == "__main__":
    unittest.main()
