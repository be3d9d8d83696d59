"""cuda_rules/private/stages.bzl must be what gen_stages_bzl.py writes from stages.py."""

import unittest

from runfiles import runfiles

from tools.nvcc_plan import gen_stages_bzl


class StagesBzlTest(unittest.TestCase):
    def test_checked_in_file_is_generated(self):
        path = runfiles.Create().Rlocation("rules_cuda_stages/" + gen_stages_bzl.TARGET)
        with open(path) as f:
            checked_in = f.read()
        self.assertEqual(
            checked_in,
            gen_stages_bzl.render(),
            "%s is stale: run `bazel run //tools/nvcc_plan:gen_stages_bzl`" % gen_stages_bzl.TARGET,
        )


if __name__ == "__main__":
    unittest.main()
