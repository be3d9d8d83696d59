"""The CudaPlan program (cuda_plan.py), one-shot and as a persistent worker, on a real target's plan.

From the recorded nvcc arguments of //tools/nvcc_plan:runner_fixture, in a
directory laid out like the execroot and with the hermetic toolkit's nvcc:
  - a one-shot run from Bazel-style params files (`@FILE`, one argument per
    line) writes exactly the files the CudaPlan action wrote;
  - a persistent worker fed JSON WorkRequests, one per line, writes the same
    files, answers each request with its id, reports a failed request's
    message in that response (not on stdout) and keeps serving;
  - stdout carries nothing but WorkResponses;
  - a worker asks nvcc once per set of flags (dryrun_cache.py): a second source
    with the same flags, in another directory, gets exactly the files a
    one-shot run (its own `nvcc --dryrun`) writes for it, and nvcc's plan
    copied for a source equals the plan nvcc prints for it.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from runfiles import runfiles

from tools.nvcc_plan import dryrun
from tools.nvcc_plan import dryrun_cache
from tools.nvcc_plan import layout as layout_lib

_FIXTURE = "tools/nvcc_plan/_cuda/runner_fixture/testdata/run/axpy-kernel"
_SOURCE = "tools/nvcc_plan/testdata/run/axpy-kernel.cu"
# A second source with the fixture's flags: another directory, another stem.
_SECOND = "tools/nvcc_plan/other/dir/second.kernel.cu"


def _read(path):
    with open(path, "rb") as f:
        return f.read()


class PlannerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        r = runfiles.Create()
        cls.cuda_plan = r.Rlocation("rules_cuda_stages/tools/nvcc_plan/cuda_plan")
        marker = r.Rlocation("rules_cuda_stages/tools/nvcc_plan/cuda_plan_test.py")
        cls.root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(marker))))
        cls.fixture = os.path.join(cls.root, "_main", _FIXTURE)
        cls.layout = layout_lib.load_compile(os.path.join(cls.fixture, "plan", "layout.json"))
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
        # The sources, as the execroot has them: symlinks (nvcc resolves them).
        for src in (_SOURCE, _SECOND):
            os.makedirs(os.path.join(d, os.path.dirname(src)), exist_ok=True)
            os.symlink(os.path.join(self.root, "_main", _SOURCE), os.path.join(d, src))
        return d, layout_path

    def _second(self, execroot):
        """The layout and nvcc arguments of _SECOND, as the rules would write them; returns the layout's path."""
        with open(os.path.join(self.fixture, "plan", "layout.json")) as f:
            text = f.read()
        old_dir, new_dir = "testdata/run/axpy-kernel", "other/dir/second.kernel"
        rename = lambda v: v.replace(old_dir, new_dir).replace("axpy-kernel", "second.kernel")  # noqa: E731
        text = rename(text)
        layout = json.loads(text)
        self.assertTrue(layout["src"].endswith(_SECOND), layout["src"])
        path = os.path.join(layout["directory"], "plan", "layout.json")
        for p in [path] + list(layout["files"].values()) + list(layout["scripts"].values()):
            os.makedirs(os.path.join(execroot, os.path.dirname(p)), exist_ok=True)
        with open(os.path.join(execroot, path), "w") as f:
            f.write(text)
        args = list(self.nvcc_args)
        for flag in ("-c", "-o"):
            args[args.index(flag) + 1] = rename(args[args.index(flag) + 1])
        self.assertTrue(args[args.index("-c") + 1].endswith(_SECOND))
        return path, args, layout_lib.load_compile(os.path.join(execroot, path))

    def _files_of(self, execroot, layout):
        return {p: _read(os.path.join(execroot, p)) for p in self._outputs(layout)}

    def _outputs(self, layout=None):
        """What CudaPlan writes for `layout` (default: the fixture's)."""
        layout = layout or self.layout
        return [layout.module_id_file, layout.nvcc_args_file, layout.files["fatbin_decl"]] + sorted(layout.scripts.values())

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
        proc = subprocess.run([self.cuda_plan] + params, cwd=execroot, capture_output=True, text=True)
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
            [self.cuda_plan, "--persistent_worker"],
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
        self.assertIn("usage: cuda_plan", responses[1]["output"])
        # The worker went on to plan the next request exactly as the action did.
        self.assertEqual(responses[2], {"exitCode": 0, "output": "", "requestId": 0})
        self._assert_outputs_are_the_actions(execroot)

    def test_worker_plans_each_set_of_flags_once(self):
        # One worker plans the fixture, then a second source with the same flags.
        execroot, layout_path = self._execroot()
        second_layout_path, second_args, second = self._second(execroot)
        nvcc = "--nvcc=external/%s/bin/nvcc" % self.toolkit_repo
        requests = [
            {"arguments": self._arguments(layout_path), "requestId": 1},
            {"arguments": ["compile", "--layout=" + second_layout_path, nvcc, "--"] + second_args, "requestId": 2},
        ]
        proc = subprocess.run([self.cuda_plan, "--persistent_worker"], cwd=execroot, capture_output=True, text=True,
                              input="".join(json.dumps(r) + "\n" for r in requests), timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        responses = [json.loads(line) for line in proc.stdout.splitlines()]
        self.assertEqual(responses, [{"exitCode": 0, "output": "", "requestId": i} for i in (1, 2)], proc.stdout)
        self._assert_outputs_are_the_actions(execroot)
        from_worker = self._files_of(execroot, second)
        # A one-shot run of the second source alone: its own nvcc --dryrun.
        fresh, _ = self._execroot()
        self._second(fresh)
        one_shot = subprocess.run([self.cuda_plan, "compile", "--layout=" + second_layout_path, nvcc, "--"] + second_args,
                                  cwd=fresh, capture_output=True, text=True)
        self.assertEqual(one_shot.returncode, 0, one_shot.stderr)
        self.assertEqual(from_worker, self._files_of(fresh, second))
        self.assertIn(b"second.kernel.cu", from_worker[second.scripts["cicc/compute_90"]])
        self.assertNotIn(b"axpy-kernel", b"".join(from_worker.values()))

    def test_a_host_compiler_missing_on_this_machine_gets_the_fix(self):
        # A remote executor without the C++ toolchain's compiler: nvcc runs it even for its plan.
        execroot, _ = self._execroot()
        nvcc = os.path.join(execroot, "external", self.toolkit_repo, "bin", "nvcc")
        args = list(self.nvcc_args)
        at = args.index("-ccbin") + 1
        for ccbin, missing in ((args[at], False), ("/nonexistent/bin/gcc", True)):
            args[at] = ccbin
            try:
                dryrun.run_dryrun(nvcc, args, cwd=execroot)
                error = ""
            except dryrun.PlanError as e:
                error = str(e)
            if not missing:
                self.assertEqual(error, "")
                continue
            self.assertIn("nvcc fatal", error)
            last = error.splitlines()[-1]
            self.assertTrue(last.startswith("the host compiler /nonexistent/bin/gcc (the C++ toolchain's"), last)
            self.assertIn("--@rules_cuda_stages//cuda_rules:host_toolchain=gcc10", last)

    def test_dryrun_cache_asks_nvcc_once_per_set_of_flags(self):
        execroot, _ = self._execroot()
        _, second_args, _ = self._second(execroot)
        nvcc = os.path.join(execroot, "external", self.toolkit_repo, "bin", "nvcc")
        cache = dryrun_cache.DryrunCache()
        first = cache.plan(nvcc, self.nvcc_args, cwd=execroot)
        copied = cache.plan(nvcc, second_args, cwd=execroot)
        self.assertEqual(cache.dryruns, 1)
        fresh = dryrun.plan_from_text(dryrun.run_dryrun(nvcc, second_args, cwd=execroot))

        def normalized(plan):
            # nvcc's temporary names hold its process id: the only part that differs between runs.
            tmp = lambda v: re.sub(r"tmpxft_[0-9a-f]+_[0-9a-f]+-", "tmpxft_-", v)  # noqa: E731
            return [(s.step, s.arch, s.virtual_arch, [tmp(a) for a in s.argv], [tmp(a) for a in s.inputs],
                     [tmp(a) for a in s.outputs]) for s in plan.commands]

        self.assertEqual(normalized(copied), normalized(fresh))
        self.assertNotEqual(normalized(copied), normalized(first))
        # The cached plan was not changed by the copy made from it.
        self.assertEqual(normalized(cache.plan(nvcc, self.nvcc_args, cwd=execroot)), normalized(first))
        self.assertEqual(cache.dryruns, 1)
        # Another flag is another plan.
        cache.plan(nvcc, ["-DPLAN_CACHE_TEST=1"] + list(self.nvcc_args), cwd=execroot)
        self.assertEqual(cache.dryruns, 2)


if __name__ == "__main__":
    unittest.main()
