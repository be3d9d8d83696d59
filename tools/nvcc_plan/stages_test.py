"""The stage table's functions: keys, paths, the runner's graph, and what reports read back."""

import unittest

from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import stages

_ARCHS = [
    stages.Arch("compute_80", ("sm_80", "sm_86")),
    stages.Arch("compute_90", ("sm_90",), ptx=True),
]


class StagesTest(unittest.TestCase):
    def test_compile_files_follow_the_patterns(self):
        files = stages.compile_files("k", _ARCHS)
        self.assertEqual(files["cpp4"], "k.cpp4.ii")
        self.assertEqual(files["cpp1/compute_80"], "compute_80/k.cpp1.ii")
        self.assertEqual(files["cubin/compute_80/sm_86"], "compute_80/sm_86/k.cubin")
        self.assertEqual(files["module_id"], "k.module_id")
        self.assertNotIn("cubin/compute_90/sm_80", files)

    def test_lto_arch_writes_nvvm_ir(self):
        files = stages.compile_files("k", [stages.Arch("compute_90", (), lto=True)])
        self.assertEqual(files["ptx/compute_90"], "compute_90/k.ltoir")
        self.assertNotIn("cicc_stub/compute_90", files)

    def test_scripts(self):
        scripts = stages.compile_script_paths(_ARCHS, rdc=False)
        self.assertEqual(scripts["ptxas/compute_80/sm_86"], "plan/ptxas.compute_80.sm_86.sh")
        self.assertEqual(scripts["host_compile"], "plan/host_compile.sh")
        self.assertNotIn(stages.DEVICE_OBJECT_SCRIPT, scripts)
        self.assertEqual(stages.compile_script_paths(_ARCHS, rdc=True)[stages.DEVICE_OBJECT_SCRIPT], "plan/device_object.sh")

    def test_graph(self):
        deps = stages.compile_dependencies(_ARCHS)
        self.assertEqual(deps["frontend"], ["host_preprocess"])
        self.assertEqual(deps["ptxas/compute_80/sm_86"], ["cicc/compute_80"])
        # The fatbinary embeds every cubin and compute_90's PTX, not compute_80's.
        self.assertEqual(
            sorted(deps["fatbinary"]),
            ["cicc/compute_90", "ptxas/compute_80/sm_80", "ptxas/compute_80/sm_86", "ptxas/compute_90/sm_90"],
        )
        # The host compile includes the registration stub (cicc's front end alone), and no device code:
        # it waits for no cicc of an arch.
        self.assertEqual(deps["host_compile"], ["frontend", "registration_stub"])
        self.assertEqual(deps["registration_stub"], [])
        self.assertEqual(deps["embed_fatbin"], ["host_compile", "fatbinary"])
        self.assertEqual(deps["device_preprocess/compute_80"], [])
        # Without a stub arch among the build's, every cicc reads its own preprocess.
        self.assertEqual(deps["cicc/compute_90"], ["device_preprocess/compute_90"])

    def test_graph_with_the_stub_arch(self):
        # The stub's action ran compute_90's preprocess and front end: its cicc runs on that.
        deps = stages.compile_dependencies(_ARCHS, stub="compute_90")
        self.assertEqual(deps["cicc/compute_90"], ["registration_stub"])
        self.assertEqual(deps["cicc/compute_80"], ["device_preprocess/compute_80"])
        self.assertNotIn("device_preprocess/compute_90", [d for ds in deps.values() for d in ds])
        reads = stages.compile_reads(_ARCHS, stub="compute_90")
        self.assertEqual(reads["cicc/compute_90"], ["stub_cicc_input", "module_id"])
        self.assertEqual(reads["cicc/compute_80"], ["cpp1/compute_80", "module_id"])

    def test_link_reads(self):
        self.assertEqual(stages.read_keys(stages.NVLINK, {"arch": "sm_80"}, stages.LINK_TABLE, link_archs=["sm_80", "sm_90"]), [])
        self.assertEqual(
            stages.read_keys(stages.LINK_FATBINARY, {}, stages.LINK_TABLE, link_archs=["sm_80", "sm_90"]),
            ["cubin/sm_80", "cubin/sm_90"],
        )
        # The link stub registers what the last arch's nvlink lists, and includes CudaPlan's markers.
        self.assertEqual(
            stages.read_keys(stages.LINK_STUB, {}, stages.LINK_TABLE, link_archs=["sm_80", "sm_90"]),
            ["fatbin_c", "reg_c/sm_90", "markers"],
        )

    def test_every_stage_has_a_mnemonic_and_the_tables_their_exec_groups(self):
        self.assertEqual(stages.exec_groups(stages.COMPILE_TABLE.stages), ["cicc", "ptxas"])
        self.assertEqual(stages.exec_groups(stages.LINK_TABLE.stages), ["dlink"])
        for table in (stages.COMPILE_TABLE, stages.LINK_TABLE):
            for stage in table.stages:
                self.assertTrue(stage.mnemonic.startswith("Cuda"), stage)
                self.assertIn(stage.mnemonic, stages.pipeline_mnemonics())
                self.assertTrue(stage.progress, stage)

    def test_arch_of_output(self):
        self.assertEqual(stages.arch_of_output("CudaPtxas", "bazel-out/k8/bin/p/_cuda/t/k/compute_80/sm_86/k.cubin"), "sm_86")
        self.assertEqual(stages.arch_of_output("CudaCicc", "bazel-out/k8/bin/p/_cuda/t/k/compute_80/k.ptx"), "compute_80")
        self.assertEqual(stages.arch_of_output("CudaCicc", "bazel-out/k8/bin/p/_cuda/t/k/compute_90/k.ltoir"), "compute_90")
        self.assertEqual(stages.arch_of_output("CudaDeviceLink", "bazel-out/k8/bin/p/_cuda_dlink/t/sm_90/t.reg.c"), "sm_90")
        self.assertEqual(stages.arch_of_output("CudaHostCompile", "bazel-out/k8/bin/p/_cuda/t/k/k.o"), "-")
        self.assertEqual(stages.arch_of_output("CppCompile", "bazel-out/k8/bin/compute_80/sm_80/x.o"), "-")

    def test_mnemonics(self):
        self.assertEqual(stages.pipeline_mnemonics()[0], "CudaPlan")
        self.assertIn("CudaDeviceLink", stages.device_mnemonics())
        self.assertNotIn("CudaHostCompile", stages.device_mnemonics())


class LayoutTest(unittest.TestCase):
    def _layout(self, **overrides):
        args = dict(
            label="@@//p:t", display_label="//p:t", src="/proc/self/cwd/p/k.cu", src_short_path="p/k.cu", stem="k",
            directory="bazel-out/x/bin/p/_cuda/t/k", toolkit_root="/proc/self/cwd/external/cuda", archs=_ARCHS, rdc=False,
        )
        args.update(overrides)
        return layout_lib.compile_layout_for(**args)

    def test_round_trip(self):
        layout = self._layout(rdc=True)
        again = layout_lib.compile_layout_from_json(layout.to_json())
        self.assertEqual(again, layout)
        self.assertEqual(again.stub_arch, "compute_90")
        self.assertEqual(again.stub_name, "k.cudafe1.stub.c")
        self.assertEqual(again.host_compile_iquote, ["bazel-out/x/bin/p/_cuda/t/k/host"])
        # Pinned to a shipped set: its last arch, whichever the build compiles.
        pinned = self._layout(archs=[stages.Arch("compute_80", ("sm_80",))], pinned_arch_list="750,800,900")
        self.assertEqual(pinned.stub_arch, "compute_90")
        self.assertEqual(again.real_keys, ["compute_80/sm_80", "compute_80/sm_86", "compute_90/sm_90"])

    def test_a_path_the_table_does_not_give_is_refused(self):
        obj = self._layout().to_json()
        obj["files"]["cpp4"] = "elsewhere/k.cpp4.ii"
        with self.assertRaisesRegex(layout_lib.LayoutError, "'cpp4' is elsewhere/k.cpp4.ii, the stage table says"):
            layout_lib.compile_layout_from_json(obj)

    def test_a_missing_or_extra_key_is_refused(self):
        obj = self._layout().to_json()
        del obj["scripts"]["fatbinary"]
        with self.assertRaisesRegex(layout_lib.LayoutError, r"missing \['fatbinary'\]"):
            layout_lib.compile_layout_from_json(obj)
        obj = self._layout().to_json()
        obj["extra"] = 1
        with self.assertRaisesRegex(layout_lib.LayoutError, "unknown keys"):
            layout_lib.compile_layout_from_json(obj)

    def test_types_are_checked(self):
        obj = self._layout().to_json()
        obj["rdc"] = "yes"
        with self.assertRaisesRegex(layout_lib.LayoutError, "'rdc' must be true or false"):
            layout_lib.compile_layout_from_json(obj)

    def test_link_layout(self):
        d = "bazel-out/x/bin/p/_cuda_dlink/t"
        obj = {
            "label": "//p:t", "name": "t", "directory": d, "toolkit_root": "/proc/self/cwd/external/cuda",
            "archs": ["sm_90"], "lto": False, "non_rdc": [], "objects": ["a.o"],
            "markers": [["rules_cuda_stages__no_device_link_for__p_a__p_a_cu", "rules_cuda_stages__device_linked_twice__p_a__p_a_cu"]],
            "inputs": {"sm_90": [{"kind": "elf", "image": "x.cubin", "script": "x.sh", "name": "//p:a (p/a.cu)"}]},
            "files": {k: d + "/" + v for k, v in stages.link_files("t", ["sm_90"]).items()},
            "scripts": {k: d + "/" + v for k, v in stages.link_script_paths(["sm_90"]).items()},
        }
        layout = layout_lib.link_layout_from_json(obj)
        self.assertEqual(layout.files["cubin/sm_90"], d + "/sm_90/t.cubin")
        obj["inputs"]["sm_90"][0]["kind"] = "bitcode"
        with self.assertRaisesRegex(layout_lib.LayoutError, "not elf, nvvm or object"):
            layout_lib.link_layout_from_json(obj)


if __name__ == "__main__":
    unittest.main()
