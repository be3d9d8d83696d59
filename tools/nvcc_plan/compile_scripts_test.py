"""compile_scripts' registration stub commands, on nvcc 13.0's and 13.5's recorded plans (testdata/).

A build that does not compile the registration arch (a pinned subset: the shipped
set's last, compute_90) gets that arch's device preprocess and cicc commands
from another arch's: they must be nvcc's own commands for compute_90, but for
file names (which the stub script replaces). Otherwise the stub, and the host
compile that reads it, would not be the same action as in a build of the
whole set.
"""

import subprocess
import types
import unittest

from runfiles import runfiles

from tools.nvcc_plan import compile_scripts as lib
from tools.nvcc_plan import dryrun
from tools.nvcc_plan import stage_graph
from tools.nvcc_plan import stages


def _plan(name):
    path = runfiles.Create().Rlocation("rules_cuda_stages/tools/nvcc_plan/testdata/" + name)
    with open(path) as f:
        return dryrun.plan_from_text(f.read())


def _without_files(argv):
    return [a for a in argv if not a.startswith("/tmp/")]


def _layout(virtuals, pinned):
    archs = [stages.Arch(v) for v in virtuals]
    return types.SimpleNamespace(virtual_archs=virtuals, registration_arch=stage_graph.registration_arch(archs, pinned))


class StubCommandsTest(unittest.TestCase):
    def test_the_stub_arch_is_the_shipped_sets_last(self):
        self.assertEqual(stage_graph.registration_arch([stages.Arch("compute_80")], "750,800,860,900"), "compute_90")
        self.assertEqual(stage_graph.registration_arch([stages.Arch("compute_80"), stages.Arch("compute_89")], ""), "compute_89")

    def test_subset_gets_nvccs_commands_of_the_stub_arch(self):
        for name in ("cuda13.0_3virtual_4real.txt", "cuda13.5_3virtual_4real.txt"):
            plan = _plan(name)
            dpps = {c.arch: c for c in plan.by_step(stages.STEP_DEVICE_CPP)}
            ciccs = {c.arch: c for c in plan.by_step(stages.STEP_CICC)}
            hc = plan.by_step(stages.STEP_HOST_CC)[0]
            self.assertIn("-D__CUDA_ARCH__=900", hc.argv)
            self.assertIn("compute_90", ciccs)
            for other in [a for a in ciccs if a != "compute_90"]:
                with self.subTest(plan=name, compiled=other):
                    # Only `other` compiled, pinned to a set whose last arch is 90.
                    layout = _layout([other], "750,800,900")
                    # nvcc's host compile for `other` alone defines __CUDA_ARCH__ as other's.
                    own_hc = lib._retarget(hc, "-D__CUDA_ARCH__=900", lib._arch_define(other))
                    self.assertIsNotNone(own_hc)
                    arch, dpp, cicc, host = lib.registration_commands(
                        layout, {other: dpps[other]}, {other: ciccs[other]}, own_hc)
                    self.assertEqual(arch, "compute_90")
                    self.assertEqual(_without_files(dpp.argv), _without_files(dpps["compute_90"].argv))
                    self.assertEqual(_without_files(cicc.argv), _without_files(ciccs["compute_90"].argv))
                    self.assertNotEqual(_without_files(cicc.argv), _without_files(ciccs[other].argv))
                    # The host compile pairs with the stub: the whole set's command.
                    self.assertEqual(host.argv, hc.argv)

    def test_the_whole_set_uses_nvccs_own_commands(self):
        plan = _plan("cuda13.0_3virtual_4real.txt")
        dpps = {c.arch: c for c in plan.by_step(stages.STEP_DEVICE_CPP)}
        ciccs = {c.arch: c for c in plan.by_step(stages.STEP_CICC)}
        hc = plan.by_step(stages.STEP_HOST_CC)[0]
        arch, dpp, cicc, host = lib.registration_commands(_layout(sorted(ciccs), ""), dpps, ciccs, hc)
        self.assertEqual(arch, sorted(ciccs)[-1])
        self.assertIs(cicc, ciccs[arch])
        self.assertIs(dpp, dpps[arch])
        self.assertIs(host, hc)

    def test_no_plain_arch_falls_back_to_nvccs_last(self):
        plan = _plan("cuda13.0_3virtual_4real.txt")
        c = plan.by_step(stages.STEP_CICC)[0]
        d = plan.by_step(stages.STEP_DEVICE_CPP)[0]
        hc = plan.by_step(stages.STEP_HOST_CC)[0]
        layout = _layout(["compute_90a"], "900")
        self.assertEqual(lib.registration_commands(layout, {"compute_90a": d}, {"compute_90a": c}, hc), ("compute_90a", d, c, hc))


class ScriptLinesTest(unittest.TestCase):
    def test_placeholders_expand_in_paths_the_shell_must_quote(self):
        # An external repository's outputs have `~` in their paths: quoted, and the variable still expands.
        line = lib._line(["ln", "-s", "@PWD@/bazel-out/bin/external/ex~/k/host/k.stub_arch_cicc_input", "@TMP@/stub_arch.bc"])
        self.assertEqual(line, "ln -s \"$PWD\"'/bazel-out/bin/external/ex~/k/host/k.stub_arch_cicc_input' \"$tmp\"/stub_arch.bc || exit $?")
        with self.assertRaises(ValueError):
            lib._line(["--x=@TMP@/a"])

    def _preprocess(self, *commands):
        layout = types.SimpleNamespace(label="//pkg:k", src="pkg/k.cu")
        script = lib.preprocess_script(layout, [], [["sh", "-c", c] for c in commands])
        return subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True)

    def test_the_preprocess_runs_every_command_and_fails_with_the_first_failures_status(self):
        run = self._preprocess("echo 'w: host' >&2", "echo 'error: unsupported GNU version' >&2; exit 3",
                               "sleep 0.2; echo 'e: second' >&2; exit 5")
        self.assertEqual(run.returncode, 3)
        # Every command's errors, in the commands' order, then the hint for the one it knows.
        self.assertEqual(run.stderr.splitlines()[:3], ["w: host", "error: unsupported GNU version", "e: second"])
        self.assertIn("rules_cuda_stages: //pkg:k (CudaPreprocess): the host compiler is newer", run.stderr)
        run = self._preprocess("echo 'w: host' >&2", "true")
        self.assertEqual((run.returncode, run.stderr), (0, "w: host\n"))


if __name__ == "__main__":
    unittest.main()
