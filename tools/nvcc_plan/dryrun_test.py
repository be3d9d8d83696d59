"""dryrun against dry-run plans recorded from nvcc 13.0 (testdata/)."""

import unittest

from runfiles import runfiles

from tools.nvcc_plan import dryrun as lib
from tools.nvcc_plan import stages


def _read(name):
    path = runfiles.Create().Rlocation("rules_cuda_stages/tools/nvcc_plan/testdata/" + name)
    with open(path) as f:
        return f.read()


def _plan(name):
    return lib.plan_from_text(_read(name))


def _kinds(plan):
    return [(s.step, s.arch, s.virtual_arch) for s in plan.commands if s.step != stages.STEP_CLEANUP]


class PlanTest(unittest.TestCase):
    def test_four_real_archs_from_three_virtual(self):
        plan = _plan("cuda13.0_3virtual_4real.txt")
        self.assertEqual(
            _kinds(plan),
            [
                (stages.STEP_HOST_CPP, "", ""),
                (stages.STEP_CUDAFE, "", ""),
                (stages.STEP_DEVICE_CPP, "compute_75", ""),
                (stages.STEP_CICC, "compute_75", ""),
                (stages.STEP_PTXAS, "sm_75", "compute_75"),
                (stages.STEP_DEVICE_CPP, "compute_80", ""),
                (stages.STEP_CICC, "compute_80", ""),
                (stages.STEP_PTXAS, "sm_80", "compute_80"),
                (stages.STEP_PTXAS, "sm_86", "compute_80"),
                (stages.STEP_DEVICE_CPP, "compute_90", ""),
                (stages.STEP_CICC, "compute_90", ""),
                (stages.STEP_PTXAS, "sm_90", "compute_90"),
                (stages.STEP_FATBINARY, "", ""),
                (stages.STEP_HOST_CC, "", ""),
            ],
        )
        env = plan.env_dict()
        self.assertTrue(env["CICC_PATH"].endswith("/nvvm/bin"))
        cicc = plan.by_step(stages.STEP_CICC)[0]
        self.assertTrue(cicc.argv[0].endswith("/nvvm/bin/cicc"), cicc.argv[0])  # $CICC_PATH expanded
        self.assertIn("--generate-line-info", plan.by_step(stages.STEP_PTXAS)[0].argv)  # nvcc -lineinfo

    def test_ptx_only_virtual_arch_has_no_ptxas_stage(self):
        # code=compute_90 alone: nvcc checks the PTX it embeds with a ptxas
        # that writes nothing; that check is no stage (it makes nothing).
        text = _read("cuda13.0_sm80_ptx90.txt")
        self.assertIn("ptxas -arch=compute_90", text)
        plan = lib.plan_from_text(text)
        self.assertEqual(
            [k for k in _kinds(plan) if k[0] in (stages.STEP_CICC, stages.STEP_PTXAS)],
            [(stages.STEP_CICC, "compute_80", ""), (stages.STEP_PTXAS, "sm_80", "compute_80"), (stages.STEP_CICC, "compute_90", "")],
        )
        fatbinary = plan.by_step(stages.STEP_FATBINARY)[0]
        self.assertIn(plan.by_step(stages.STEP_CICC)[1].outputs[0], fatbinary.inputs)  # the PTX, embedded as is

    def test_cuda_13_5_plans_the_same_stages(self):
        # 13.5 adds --simt-only to cudafe++ and cicc and a CUDA_ROOT variable;
        # the stages and their dataflow are those of 13.0.
        old = _plan("cuda13.0_3virtual_4real.txt")
        new = _plan("cuda13.5_3virtual_4real.txt")
        self.assertEqual(_kinds(new), _kinds(old))
        self.assertIn("--simt-only", new.by_step(stages.STEP_CICC)[0].argv)
        self.assertNotIn("--simt-only", old.by_step(stages.STEP_CICC)[0].argv)
        self.assertIn("CUDA_ROOT", new.env_dict())
        self.assertEqual(len(new.edges()), len(old.edges()))

    def test_every_arch_list_macro_is_the_whole_list(self):
        plan = _plan("cuda13.0_3virtual_4real.txt")
        for stage in plan.by_step(stages.STEP_DEVICE_CPP) + plan.by_step(stages.STEP_HOST_CPP):
            self.assertIn("-D__CUDA_ARCH_LIST__=750,800,900", stage.argv)

    def test_dataflow_edges(self):
        plan = _plan("cuda13.0_3virtual_4real.txt")
        kinds = {(plan.commands[a].step, plan.commands[b].step) for a, b, _ in plan.edges()}
        self.assertIn((stages.STEP_HOST_CPP, stages.STEP_CUDAFE), kinds)
        self.assertIn((stages.STEP_DEVICE_CPP, stages.STEP_CICC), kinds)
        self.assertIn((stages.STEP_CICC, stages.STEP_PTXAS), kinds)
        self.assertIn((stages.STEP_PTXAS, stages.STEP_FATBINARY), kinds)
        self.assertIn((stages.STEP_CUDAFE, stages.STEP_HOST_CC), kinds)
        # The #included stub comes from the last arch's cicc, the fatbin.c from fatbinary.
        host = plan.by_step(stages.STEP_HOST_CC)[0].index
        producers = {plan.commands[a].name for a, b, _ in plan.edges() if b == host}
        self.assertEqual(producers, {"cudafe++", "cicc(compute_90)", "fatbinary"})

    def test_single_arch_names_have_no_arch(self):
        plan = _plan("cuda13.0_sm90.txt")
        self.assertEqual([s.arch for s in plan.by_step(stages.STEP_CICC)], ["compute_90"])
        self.assertEqual([s.virtual_arch for s in plan.by_step(stages.STEP_PTXAS)], ["compute_90"])
        self.assertTrue(plan.by_step(stages.STEP_PTXAS)[0].outputs[0].endswith("k.sm_90.cubin"))

    def test_rdc_link_plan_has_an_nvlink_stage(self):
        plan = _plan("cuda13.0_rdc_link.txt")
        self.assertEqual(len(plan.by_step(stages.STEP_NVLINK)), 1)

    def test_device_link_plan(self):
        # nvcc --dryrun -dlink -dlto x.o y.o, two real archs: what
        # `planner device_link` turns into CudaDeviceLink / CudaFatbinary / CudaLinkStub.
        plan = _plan("cuda13.0_dlink_dlto.txt")
        self.assertEqual(
            [(s.step, s.arch) for s in plan.commands if s.step != stages.STEP_CLEANUP],
            [(stages.STEP_NVLINK, "sm_80"), (stages.STEP_NVLINK, "sm_90"), (stages.STEP_FATBINARY, ""), (stages.STEP_LINK_STUB_CC, "")],
        )
        for s in plan.by_step(stages.STEP_NVLINK):
            self.assertEqual(s.mnemonic, "CudaDeviceLink")
            self.assertTrue(s.outputs[0].endswith(".cubin"), s.outputs)
            self.assertIn("-dlto", s.argv)
        self.assertEqual(plan.by_step(stages.STEP_LINK_STUB_CC)[0].mnemonic, "CudaLinkStub")
        self.assertEqual(plan.by_step(stages.STEP_LINK_STUB_CC)[0].outputs, ["dl.o"])

    def test_outputs(self):
        plan = _plan("cuda13.0_sm90.txt")
        self.assertIn("digraph nvcc_plan", lib.to_graphviz(plan))
        table = lib.to_table(plan)
        self.assertIn("CudaPtxas", table)
        self.assertEqual(len(lib.to_json(plan)["stages"]), len(plan.commands))

    def test_quote_in_the_source_name(self):
        # nvcc quotes the source's name everywhere but in its temporary files' cleanup.
        text = _read("cuda13.0_sm90.txt").replace("_k.", "_it's.").replace('"k.cu"', "\"it's.cu\"")
        self.assertIn("#$ rm /tmp/tmpxft", text)
        plan = lib.plan_from_text(text)
        self.assertEqual(plan.by_step(stages.STEP_HOST_CPP)[0].inputs, ["it's.cu"])
        self.assertTrue(any("it's" in a for s in plan.by_step("cleanup") for a in s.argv))
        with self.assertRaisesRegex(lib.PlanError, "No closing quotation"):
            lib.plan_from_text(text.replace("#$ rm /tmp/", "#$ cp /tmp/"))

    def test_ptxas_verbose_takes_no_value(self):
        # -Xptxas -v: nvcc puts -v right before the PTX (found by the fidelity fuzzer: the PTX was
        # taken for -v's value, and the plan failed with "ptxas reads [], which no cicc produced").
        text = _read("cuda13.0_sm90.txt")
        line = [l for l in text.splitlines() if l.startswith("#$ ptxas ")][0]
        verbose = line.replace(" -m64 ", " -m64 -v ", 1)
        self.assertNotEqual(line, verbose)
        plan = lib.plan_from_text(text.replace(line, verbose))
        ptxas = plan.by_step(stages.STEP_PTXAS)[0]
        self.assertIn("-v", ptxas.argv)
        self.assertEqual(len(ptxas.inputs), 1)
        self.assertTrue(ptxas.inputs[0].endswith(".ptx"), ptxas.inputs)

    def test_garbage_is_a_plan_error(self):
        with self.assertRaisesRegex(lib.PlanError, "no commands"):
            lib.plan_from_text("nvcc fatal : Unknown option '-foo'\n")


if __name__ == "__main__":
    unittest.main()
