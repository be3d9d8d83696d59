"""clang_dryrun and clang_scripts against a plan recorded from clang 21.1.8 with CUDA 12.4 (testdata/)."""

import os
import unittest

from runfiles import runfiles

from tools.nvcc_plan import clang_dryrun
from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import scripts as scripts_lib
from tools.nvcc_plan import stages

# `clang -### -x cuda --cuda-path=external/cuda --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_86
# --cuda-gpu-arch=sm_90 --no-cuda-include-ptx=all --cuda-include-ptx=sm_90 ... -c pkg/k.cu -o _cuda/k/k/k.o`
_PLAN = "clang21_cuda12.4_3arch.txt"
_ARCHS = [
    stages.Arch("compute_80", ("sm_80",)),
    stages.Arch("compute_86", ("sm_86",)),
    stages.Arch("compute_90", ("sm_90",), ptx=True),
]


def _read(name):
    path = runfiles.Create().Rlocation("rules_cuda_stages/tools/nvcc_plan/testdata/" + name)
    with open(path) as f:
        return f.read()


def _layout(archs=_ARCHS, table="clang"):
    directory = "_cuda/k/k"
    return layout_lib.CompileLayout(
        label="@@//pkg:k",
        display_label="//pkg:k",
        src="pkg/k.cu",
        src_short_path="pkg/k.cu",
        stem="k",
        directory=directory,
        toolkit_root="external/cuda",
        archs=archs,
        rdc=False,
        link_marker="",
        pinned_arch_list="",
        user_options=[],
        files={k: os.path.join(directory, v) for k, v in stages.compile_files("k", archs, stages.CLANG_TABLE).items()},
        scripts={
            k: os.path.join(directory, v) for k, v in stages.compile_script_paths(archs, False, stages.CLANG_TABLE).items()
        },
        table=table,
    ).validate()


class ParseTest(unittest.TestCase):
    def test_jobs_and_archs(self):
        version, plan = clang_dryrun.parse(_read(_PLAN))
        self.assertEqual(version, "21.1.8")
        self.assertEqual(
            [(c.kind, c.arch, c.virtual_arch) for c in plan.commands],
            [
                ("clang_device", "sm_80", ""),
                ("ptxas", "sm_80", "compute_80"),
                ("clang_device", "sm_86", ""),
                ("ptxas", "sm_86", "compute_86"),
                ("clang_device", "sm_90", ""),
                ("ptxas", "sm_90", "compute_90"),
                ("fatbinary", "", ""),
                ("clang_host", "", ""),
            ],
        )
        self.assertEqual([c.mnemonic for c in plan.commands][:2], [stages.CLANG_DEVICE.mnemonic, stages.PTXAS.mnemonic])

    def test_an_error_line_fails(self):
        with self.assertRaisesRegex(Exception, "unsupported CUDA gpu architecture"):
            clang_dryrun.parse("clang: error: unsupported CUDA gpu architecture: sm_103\n")


class ScriptsTest(unittest.TestCase):
    def setUp(self):
        from tools.nvcc_plan import clang_scripts

        self.lib = clang_scripts
        _, self.plan = clang_dryrun.parse(_read(_PLAN))

    def test_every_declared_script_and_no_temporary_file(self):
        layout = _layout()
        out = self.lib.for_source(self.plan, layout)
        self.assertEqual(sorted(out), sorted(layout.scripts.values()))
        for content in out.values():
            self.assertNotIn(clang_dryrun.PLAN_TMPDIR, content)

    def test_declared_files_in_the_commands(self):
        layout = _layout()
        out = self.lib.for_source(self.plan, layout)
        files = layout.files
        device = out[layout.scripts["clang_device/compute_90"]]
        self.assertIn("-target-cpu sm_90", device)
        self.assertIn("-o " + files["ptx/compute_90"], device)
        ptxas = out[layout.scripts["ptxas/compute_86/sm_86"]]
        self.assertIn('--output-file "$here"/' + files["cubin/compute_86/sm_86"], ptxas)
        self.assertIn('"$here"/' + files["ptx/compute_86"], ptxas)
        fat = out[layout.scripts["fatbinary"]]
        self.assertIn("--create " + files["fatbin"], fat)
        self.assertIn("--image3=kind=elf,sm=80,file=" + files["cubin/compute_80/sm_80"], fat)
        self.assertIn("--image3=kind=ptx,sm=90,file=" + files["ptx/compute_90"], fat)
        self.assertNotIn("--image=", fat)
        host = out[layout.scripts["clang_host"]]
        # The host compile reads no device output: an empty fatbinary, filled in by the embed stage.
        self.assertIn("-fcuda-include-gpubinary /dev/null", host)
        self.assertNotIn(files["fatbin"], host)
        self.assertIn("-o " + files["host_obj"], host)
        self.assertIn("-triple x86_64-pc-linux-gnu", host)
        embed = out[layout.scripts["clang_embed"]]
        self.assertIn('exec "$1" .nv_fatbin %s %s %s' % (files["fatbin"], files["host_obj"], files["obj"]), embed)

    def test_ptx_only_arch_runs_no_ptxas(self):
        archs = _ARCHS[:2] + [stages.Arch("compute_90", (), ptx=True)]
        layout = _layout(archs)
        out = self.lib.for_source(self.plan, layout)
        self.assertNotIn("ptxas/compute_90/sm_90", layout.scripts)
        fat = out[layout.scripts["fatbinary"]]
        self.assertNotIn("sm=90,file=" + layout.files["ptx/compute_90"].replace(".ptx", ".cubin"), fat)
        self.assertNotIn("kind=elf,sm=90", fat)
        self.assertIn("kind=ptx,sm=90", fat)

    def test_plan_with_other_archs_fails(self):
        layout = _layout(_ARCHS[:2] + [stages.Arch("compute_89", ("sm_89",), ptx=True)])
        with self.assertRaisesRegex(scripts_lib.PlanMismatch, "device compiles for"):
            self.lib.for_source(self.plan, layout)

    def test_embedded_ptx_must_match(self):
        layout = _layout(_ARCHS[:2] + [stages.Arch("compute_90", ("sm_90",))])
        with self.assertRaisesRegex(scripts_lib.PlanMismatch, "embeds the PTX of"):
            self.lib.for_source(self.plan, layout)

    def test_a_virtual_arch_with_another_real_arch_fails(self):
        layout = _layout([stages.Arch("compute_80", ("sm_86",))])
        with self.assertRaisesRegex(scripts_lib.PlanMismatch, "compute_80 with cubins sm_86"):
            self.lib.check_archs(layout)

    def test_an_nvcc_layout_is_refused(self):
        layout = _layout()
        layout.table = "compile"
        with self.assertRaisesRegex(scripts_lib.PlanMismatch, "compile table"):
            self.lib.for_source(self.plan, layout)


if __name__ == "__main__":
    unittest.main()
