"""compile_scripts' registration stub commands, on nvcc 13.0's and 13.5's recorded plans (testdata/).

A build that does not compile the registration arch (a pinned subset: the shipped
set's last, compute_90) gets that arch's device preprocess and cicc commands
from another arch's: they must be nvcc's own commands for compute_90, but for
file names (which the stub script replaces). Otherwise the stub, and the host
compile that reads it, would not be the same action as in a build of the
whole set.
"""

import os
import subprocess
import tempfile
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
        # The first failing command's errors alone (the others ran on the same source: they would say
        # it again), then the hint for the one it knows.
        self.assertEqual(run.stderr.splitlines()[0], "error: unsupported GNU version")
        self.assertNotIn("e: second", run.stderr)
        self.assertNotIn("w: host", run.stderr)
        self.assertIn("rules_cuda_stages: //pkg:k (CudaPreprocess): the host compiler is newer", run.stderr)
        # A later command fails first in time: still the first in order decides.
        run = self._preprocess("sleep 0.2; echo 'e: host' >&2; exit 4", "echo 'e: device' >&2; exit 2")
        self.assertEqual((run.returncode, run.stderr), (4, "e: host\n"))
        run = self._preprocess("echo 'w: host' >&2", "true")
        self.assertEqual((run.returncode, run.stderr), (0, "w: host\n"))
        # On success each warning once: the preprocesses of one source warn alike.
        run = self._preprocess("echo 'w: same' >&2", "echo 'w: same' >&2", "echo 'w: other' >&2", "echo 'w: same' >&2")
        self.assertEqual((run.returncode, run.stderr), (0, "w: same\nw: other\n"))

    def test_a_missing_compiler_gets_the_hermetic_toolchains_hint(self):
        # A remote executor without the C++ toolchain's compiler: the shell's "not found", status 127.
        run = self._preprocess("true", "/nonexistent/bin/gcc -E x.cu")
        self.assertEqual(run.returncode, 127)
        self.assertIn("/nonexistent/bin/gcc: not found", run.stderr.splitlines()[0])
        hint = [line for line in run.stderr.splitlines() if line.startswith("rules_cuda_stages:")]
        self.assertEqual(len(hint), 1, run.stderr)
        self.assertIn("//pkg:k (CudaPreprocess): a program this stage runs is not on the machine that ran it", hint[0])
        self.assertIn("--@rules_cuda_stages//cuda_rules:host_toolchain=gcc10", hint[0])
        # Any other failure: no such hint.
        run = self._preprocess("echo 'e: x' >&2; exit 1")
        self.assertNotIn("host_toolchain=gcc10", run.stderr)

    def test_the_front_ends_run_side_by_side_and_say_an_error_once(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "k.cudafe1.cpp")
            layout = types.SimpleNamespace(label="//pkg:k", src="pkg/k.cu", files={stages.KEYS.cudafe1_cpp: out})

            def run(cudafe, stub):
                script = lib.frontend_script(layout, [], ["sh", "-c", cudafe], stub)
                return subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True)

            # cudafe++'s output has its disabled device code blanked, lines kept.
            ok = run("printf 'a\\n#if 0\\nx\\n#endif\\nb\\n' > " + out, ["echo 'w: stub' >&2"])
            self.assertEqual((ok.returncode, ok.stderr), (0, "w: stub\n"))
            with open(out) as f:
                self.assertEqual(f.read(), "a\n#if 0\n\n#endif\nb\n")
            # Both front ends see a device code error: said once, with cudafe++'s status.
            both = run("echo 'e: undefined' >&2; exit 2", ["echo 'e: undefined' >&2", "exit 1"])
            self.assertEqual((both.returncode, both.stderr), (2, "e: undefined\n"))
            # The stub's front end alone fails (cicc -lgenfe wrote no IR): its status and its errors alone.
            stub = run("echo 'w: host' >&2; : > " + out, ["echo 'e: stub' >&2", "exit 1"])
            self.assertEqual((stub.returncode, stub.stderr), (1, "e: stub\n"))


if __name__ == "__main__":
    unittest.main()
