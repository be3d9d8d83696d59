"""link_scripts against nvcc 13.0's recorded device link plans (testdata/).

The sm_90 device link is one action whatever else the link has: nvcc's nvlink
command for sm_90 in a two-arch link (sm_80 + sm_90) and in a one-arch link
(sm_90 alone) become the same command once each has `-report-arch` where nvcc
puts it, and nvcc's output names are replaced by the declared ones.
"""

import unittest

from runfiles import runfiles

from tools.nvcc_plan import dryrun
from tools.nvcc_plan import stages
from tools.nvcc_plan import link_scripts as lib


def _plan(name):
    path = runfiles.Create().Rlocation("rules_cuda_stages/tools/nvcc_plan/testdata/" + name)
    with open(path) as f:
        return dryrun.plan_from_text(f.read())


def _nvlink(plan, arch):
    """nvcc's nvlink command for `arch`, its output files named as the rules name them."""
    s = [s for s in plan.by_step(stages.STEP_NVLINK) if s.arch == arch][0]
    reg = dryrun.value_after(s.argv, "--register-link-binaries")
    names = {s.outputs[0]: "sm_90/dl.cubin", reg: "sm_90/dl.reg.c"}
    return [names.get(a, a.replace(reg, "sm_90/dl.reg.c")) for a in s.argv]


class ReportArchTest(unittest.TestCase):
    def test_nvcc_passes_report_arch_only_to_a_multi_arch_link(self):
        two = _nvlink(_plan("cuda13.0_dlink_dlto.txt"), "sm_90")
        one = _nvlink(_plan("cuda13.0_dlink_dlto_sm90.txt"), "sm_90")
        self.assertIn(lib.REPORT_ARCH, two)
        self.assertNotIn(lib.REPORT_ARCH, one)
        self.assertNotEqual(one, two)

    def test_sm90_link_is_the_same_command_in_both_arch_sets(self):
        two = _nvlink(_plan("cuda13.0_dlink_dlto.txt"), "sm_90")
        one = _nvlink(_plan("cuda13.0_dlink_dlto_sm90.txt"), "sm_90")
        self.assertEqual(lib.with_report_arch(one), lib.with_report_arch(two))
        # Where nvcc puts it: a multi-arch command is left as nvcc wrote it.
        self.assertEqual(lib.with_report_arch(two), two)

    def test_once_and_after_cpu_arch(self):
        argv = ["nvlink", "-report-arch", "-m64", "-cpu-arch=X86_64", "a.o", "-report-arch"]
        self.assertEqual(lib.with_report_arch(argv), ["nvlink", "-m64", "-cpu-arch=X86_64", "-report-arch", "a.o"])
        self.assertEqual(lib.with_report_arch(["nvlink", "-m64", "a.o"]), ["nvlink", "-report-arch", "-m64", "a.o"])


if __name__ == "__main__":
    unittest.main()
