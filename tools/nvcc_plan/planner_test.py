"""The CudaPlan tool (planner.py), one-shot and as a persistent worker, on a real target's plan.

From the recorded nvcc arguments of //tools/nvcc_plan:runner_fixture, in a
directory laid out like the execroot and with the hermetic toolkit's nvcc:
  - a one-shot run from Bazel-style params files (`@FILE`, one argument per
    line) writes exactly the files the CudaPlan action wrote;
  - a persistent worker fed JSON WorkRequests, one per line, writes the same
    files, answers each request with its id, reports a failed request's
    message in that response (not on stdout) and keeps serving;
  - stdout carries nothing but WorkResponses.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from runfiles import runfiles

from tools.nvcc_plan import layout as layout_lib

_FIXTURE = "tools/nvcc_plan/_cuda/runner_fixture/testdata/run/axpy-kernel"


def _read(path):
    with open(path, "rb") as f:
        return f.read()


class PlannerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        r = runfiles.Create()
        cls.planner = r.Rlocation("rules_cuda_stages/tools/nvcc_plan/planner")
        marker = r.Rlocation("rules_cuda_stages/tools/nvcc_plan/planner_test.py")
        cls.root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(marker))))
        cls.fixture = os.path.join(cls.root, "_main", _FIXTURE)
        cls.layout = layout_lib.load(os.path.join(cls.fixture, "plan", "layout.json"))
        with open(os.path.join(cls.fixture, "plan", "nvcc_args.json")) as f:
            cls.nvcc_args = json.load(f)
        cls.toolkit_repo = os.path.basename(cls.layout.toolkit_root)

    def _execroot(self):
        """The runfiles laid out as the execroot (external/<repo>), with the layout copied into bazel-out."""
        d = tempfile.mkdtemp(prefix="execroot.", dir=os.environ.get("TEST_TMPDIR"))
        os.makedirs(os.path.join(d, "external"))
        for entry in os.listdir(self.root):
            if entry != "_main" and os.path.isdir(os.path.join(self.root, entry)):
                os.symlink(os.path.join(self.root, entry), os.path.join(d, "external", entry))
        layout_path = os.path.join(os.path.dirname(self.layout.module_id_file), "plan", "layout.json")
        os.makedirs(os.path.join(d, os.path.dirname(layout_path)))
        shutil.copyfile(os.path.join(self.fixture, "plan", "layout.json"), os.path.join(d, layout_path))
        for path in self._outputs():
            os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
        return d, layout_path

    def _outputs(self):
        return [self.layout.module_id_file, self.layout.nvcc_args_file, self.layout.files["fatbin_decl"]] + sorted(self.layout.scripts.values())

    def _arguments(self, layout_path):
        return ["compile", "--layout=" + layout_path, "--nvcc=external/%s/bin/nvcc" % self.toolkit_repo, "--"] + self.nvcc_args

    def _assert_outputs_are_the_actions(self, execroot):
        for path in self._outputs():
            with self.subTest(file=path):
                # bazel-out/<cfg>/bin/<short path> -> the fixture's runfile
                self.assertEqual(_read(os.path.join(execroot, path)), _read(os.path.join(self.root, "_main", path.split("/", 3)[3])))

    def test_one_shot_from_params_files(self):
        execroot, layout_path = self._execroot()
        arguments = self._arguments(layout_path)
        split = arguments.index("--") + 1
        params = []
        for i, chunk in enumerate([arguments[:split], arguments[split:]]):
            path = os.path.join(execroot, "plan-%d.params" % i)
            with open(path, "w") as f:
                f.write("\n".join(chunk) + "\n")
            params.append("@plan-%d.params" % i)
        proc = subprocess.run([self.planner] + params, cwd=execroot, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout, "")
        self._assert_outputs_are_the_actions(execroot)

    def test_persistent_worker(self):
        execroot, layout_path = self._execroot()
        good = self._arguments(layout_path)
        bad = ["compile", "--layout=" + layout_path, "--nvcc=external/%s/bin/nvcc" % self.toolkit_repo, "--", "-arch=sm_999", "-c", "x.cu"]
        requests = [
            {"arguments": bad, "requestId": 0},
            {"arguments": ["link"], "requestId": 0},
            {"arguments": good, "inputs": [], "requestId": 0},
        ]
        proc = subprocess.run(
            [self.planner, "--persistent_worker"],
            cwd=execroot,
            input="".join(json.dumps(r) + "\n" for r in requests),
            capture_output=True,
            text=True,
            timeout=300,
        )
        self.assertEqual(proc.returncode, 0, proc.stderr)
        responses = [json.loads(line) for line in proc.stdout.splitlines()]
        self.assertEqual(len(responses), 3, proc.stdout)
        self.assertEqual([r["requestId"] for r in responses], [0, 0, 0])
        # nvcc's refusal, named for the target, in the failed request's response.
        self.assertEqual(responses[0]["exitCode"], 1)
        self.assertIn("rules_cuda_stages:", responses[0]["output"])
        self.assertIn("sm_999", responses[0]["output"])
        self.assertEqual(responses[1]["exitCode"], 2)
        self.assertIn("usage: planner", responses[1]["output"])
        # The worker went on to plan the next request exactly as the action did.
        self.assertEqual(responses[2], {"exitCode": 0, "output": "", "requestId": 0})
        self._assert_outputs_are_the_actions(execroot)


if __name__ == "__main__":
    unittest.main()
