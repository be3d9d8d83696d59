"""The stage table and stage_graph.py, the table applied to a source or a device link: keys, paths, what each action reads."""

import unittest

from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import stage_graph
from tools.nvcc_plan import stages

KEYS = stages.KEYS

_ARCHS = [
    stages.Arch("compute_80", ("sm_80", "sm_86")),
    stages.Arch("compute_90", ("sm_90",), ptx=True),
]


def _graph(archs=_ARCHS, registration="compute_90", rdc=False, table=stages.COMPILE_TABLE, preprocessed=()):
    """A source's graph; by default unpinned (the registration arch is the build's last, the build's archs preprocessed)."""
    return stage_graph.unit_graph(table, virtuals=archs, stem="k", registration=registration, device_object=rdc,
                                  preprocessed=list(preprocessed))


def _deps(graph):
    """{action: [actions whose outputs it reads]}: the graph the runner runs."""
    producer = {k: a["script"] for a in graph["actions"] for k in a["outputs"]}
    return {a["script"]: sorted({producer[k] for k in a["reads"] if k in producer}) for a in graph["actions"]}


def _reads(graph):
    return {a["script"]: a["reads"] for a in graph["actions"]}


class StageGraphTest(unittest.TestCase):
    def test_files_follow_the_patterns(self):
        files = _graph()["files"]
        self.assertEqual(files["cpp4"], "k.cpp4.ii")
        self.assertEqual(files["cpp1/compute_80"], "compute_80/k.cpp1.ii")
        self.assertEqual(files["cubin/compute_80/sm_86"], "compute_80/sm_86/k.cubin")
        self.assertEqual(files["module_id"], "k.module_id")
        self.assertNotIn("cubin/compute_90/sm_80", files)

    def test_lto_arch_writes_nvvm_ir(self):
        files = _graph([stages.Arch("compute_90", (), lto=True)])["files"]
        self.assertEqual(files["ptx/compute_90"], "compute_90/k.ltoir")

    def test_scripts(self):
        scripts = _graph()["scripts"]
        self.assertEqual(scripts["ptxas/compute_80/sm_86"], "plan/ptxas.compute_80.sm_86.sh")
        self.assertEqual(scripts["host_compile"], "plan/host_compile.sh")
        self.assertNotIn(stages.DEVICE_OBJECT_SCRIPT, scripts)
        self.assertEqual(_graph(rdc=True)["scripts"][stages.DEVICE_OBJECT_SCRIPT], "plan/device_object.sh")

    def test_graph(self):
        deps = _deps(_graph())
        # One action reads the source and its headers; everything else reads its outputs.
        self.assertEqual(deps["preprocess"], [])
        self.assertEqual(deps["frontend"], ["preprocess"])
        self.assertEqual(deps["cicc/compute_80"], ["preprocess"])
        self.assertEqual(deps["ptxas/compute_80/sm_86"], ["cicc/compute_80"])
        # The object's fatbinary embeds every cubin and compute_90's PTX, not compute_80's; with the host object.
        self.assertEqual(
            sorted(deps["embed_fatbin"]),
            ["cicc/compute_90", "host_compile", "ptxas/compute_80/sm_80", "ptxas/compute_80/sm_86", "ptxas/compute_90/sm_90"],
        )
        # The host compile includes cudafe++'s output and the registration stub (cicc's front end
        # alone, in the same action), and no device code: it waits for no cicc of an arch.
        self.assertEqual(deps["host_compile"], ["frontend"])
        # The registration arch's cicc is whole, on its own preprocessed source (cicc_split.py).
        self.assertEqual(deps["cicc/compute_90"], ["preprocess"])
        reads = _reads(_graph())
        self.assertEqual(reads["frontend"], ["cpp4", "cpp1/compute_90", "module_id"])
        self.assertEqual(reads["cicc/compute_90"], ["cpp1/compute_90", "module_id"])
        self.assertEqual(reads["cicc/compute_80"], ["cpp1/compute_80", "module_id"])
        actions = {a["script"]: a for a in _graph()["actions"]}
        self.assertEqual(actions["preprocess"]["outputs"], ["cpp4", "cpp1/compute_80", "cpp1/compute_90"])

    def test_a_pinned_subset_preprocesses_the_whole_shipped_set(self):
        # A developer's sm_80 build of a shipped set 75, 80, 86, 90: the preprocess writes every arch
        # of the set (so it is CI's action), the stub reads compute_90's, cicc compute_80's.
        archs = [stages.Arch("compute_80", ("sm_80",))]
        pinned = "750,800,860,900"
        preprocessed = stage_graph.preprocessed_archs(archs, pinned)
        self.assertEqual(preprocessed, ["compute_75", "compute_80", "compute_86", "compute_90"])
        registration = stage_graph.registration_arch(archs, pinned)
        self.assertEqual(registration, "compute_90")
        graph = _graph(archs, registration, preprocessed=preprocessed)
        actions = {a["script"]: a for a in graph["actions"]}
        self.assertEqual(sorted(actions), ["cicc/compute_80", "embed_fatbin", "frontend", "host_compile", "preprocess",
                                           "ptxas/compute_80/sm_80"])
        self.assertEqual(actions["preprocess"]["outputs"], ["cpp4"] + ["cpp1/" + a for a in preprocessed])
        self.assertEqual(graph["files"]["cpp1/compute_86"], "compute_86/k.cpp1.ii")
        self.assertEqual(actions["frontend"]["reads"], ["cpp4", "cpp1/compute_90", "module_id"])
        self.assertEqual(actions["cicc/compute_80"]["reads"], ["cpp1/compute_80", "module_id"])

    def test_preprocessed_archs(self):
        plain = [stages.Arch("compute_80"), stages.Arch("compute_90")]
        self.assertEqual(stage_graph.preprocessed_archs(plain, ""), ["compute_80", "compute_90"])
        self.assertEqual(stage_graph.preprocessed_archs(plain, "800,900"), ["compute_80", "compute_90"])
        # An arch outside the shipped set, or one that is not plain: the build's own archs,
        # and the build's last writes the registration stub.
        self.assertEqual(stage_graph.preprocessed_archs([stages.Arch("compute_89")], "800,900"), ["compute_89"])
        odd = [stages.Arch("compute_80"), stages.Arch("compute_90a")]
        self.assertEqual(stage_graph.preprocessed_archs(odd, "800,900"), ["compute_80", "compute_90a"])
        self.assertEqual(stage_graph.registration_arch(odd, "800,900"), "compute_90a")
        self.assertEqual(stage_graph.registration_arch([stages.Arch("compute_80")], "800,900"), "compute_90")

    def test_registration_arch(self):
        self.assertEqual(stage_graph.registration_arch([stages.Arch("compute_80")], "750,800,860,900"), "compute_90")
        self.assertEqual(stage_graph.registration_arch([stages.Arch("compute_80"), stages.Arch("compute_89")], ""), "compute_89")

    def test_link(self):
        graph = stage_graph.unit_graph(stages.LINK_TABLE, link_archs=["sm_80", "sm_90"], name="t")
        reads = _reads(graph)
        self.assertEqual(reads["device_link/sm_80"], [])
        self.assertEqual(reads["fatbinary"], ["cubin/sm_80", "cubin/sm_90"])
        # The link stub registers what the last arch's nvlink lists, and includes CudaPlan's markers.
        self.assertEqual(reads["link_stub"], ["fatbin_c", "reg_c/sm_90", "markers"])
        # Every arch's device link writes its registration code (only the last's is read: a product).
        self.assertEqual(graph["files"]["reg_c/sm_80"], "sm_80/t.reg.c")
        # Its scripts' name since the first release.
        self.assertEqual(graph["scripts"]["device_link/sm_90"], "plan/nvlink.sm_90.sh")

    def test_a_stage_added_to_the_table_is_in_the_graph_with_nothing_but_its_record(self):
        # A test-only table: nvcc's with one more stage (tests/cuda_library:extra_stage_test adds
        # the same record to the rules' table and checks its Bazel action).
        noop = stages.Stage(
            mnemonic="CudaTestNoop",
            scope=stages.SOURCE,
            outputs=(stages.Output("noop", "{stem}.noop"),),
            reads=((KEYS.obj, stages.SAME), (KEYS.cpp4, stages.SAME)),
            toolkit=("fatbinary",),
            progress="Testing %{label}: %{output}",
        )
        import dataclasses

        table = dataclasses.replace(
            stages.COMPILE_TABLE, stages=stages.COMPILE_TABLE.stages + (noop,), products=stages.COMPILE_TABLE.products + ("noop",)
        )
        graph = _graph(table=table)
        self.assertEqual(graph["files"]["noop"], "k.noop")
        self.assertEqual(graph["scripts"]["test_noop"], "plan/test_noop.sh")
        self.assertEqual(_deps(graph)["test_noop"], ["embed_fatbin", "preprocess"])
        self.assertEqual(_reads(graph)["test_noop"], ["obj", "cpp4"])
        # The rules' side of the record is written from it as any other's.
        from tools.nvcc_plan import gen_stages_bzl

        self.assertIn('name = "test_noop"', gen_stages_bzl._stage(noop))
        self.assertIn('mnemonic = "CudaTestNoop"', gen_stages_bzl._stage(noop))

    def test_names_come_from_mnemonics(self):
        self.assertEqual(
            [s.name for s in stages.COMPILE_STAGES],
            ["preprocess", "frontend", "cicc", "ptxas", "host_compile", "embed_fatbin"],
        )
        self.assertEqual(stages.DEVICE_LINK.name, "device_link")

    def test_every_stage_has_a_mnemonic_and_the_tables_their_exec_groups(self):
        self.assertEqual(stages.exec_groups(stages.COMPILE_TABLE.stages), ["cicc", "ptxas"])
        self.assertEqual(stages.exec_groups(stages.LINK_TABLE.stages), ["dlink"])
        for table in (stages.COMPILE_TABLE, stages.LINK_TABLE, stages.CLANG_TABLE):
            for stage in table.stages:
                self.assertTrue(stage.mnemonic.startswith("Cuda"), stage)
                self.assertIn(stage.mnemonic, stages.pipeline_mnemonics())
                self.assertTrue(stage.progress, stage)
                # One stage per step in a table: the planner finds each stage's command by its step.
                if stage.step:
                    self.assertEqual([s for s in table.stages if s.step == stage.step], [stage])

    def test_keys(self):
        self.assertEqual(KEYS.obj, "obj")
        self.assertEqual(KEYS.registration_stub, "registration_stub")
        with self.assertRaises(AttributeError):
            KEYS.no_such_output  # noqa: B018

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
    def _layout(self, archs=_ARCHS, rdc=False, pinned_arch_list=""):
        names = layout_lib.SourceNames(
            label="@@//p:t", display_label="//p:t", src="/proc/self/cwd/p/k.cu", src_short_path="p/k.cu", stem="k",
        )
        return layout_lib.compile_layout_for(
            names, directory="bazel-out/x/bin/p/_cuda/t/k", toolkit_root="/proc/self/cwd/external/cuda", archs=archs,
            rdc=rdc, pinned_arch_list=pinned_arch_list,
        )

    def test_round_trip(self):
        layout = self._layout(rdc=True)
        again = layout_lib.compile_layout_from_json(layout.to_json())
        self.assertEqual(again, layout)
        self.assertEqual(again.registration_arch, "compute_90")
        self.assertEqual(again.registration_stub_name, "k.cudafe1.stub.c")
        self.assertEqual(again.host_compile_iquote, ["bazel-out/x/bin/p/_cuda/t/k/host"])
        # Pinned to a shipped set: its last arch, whichever the build compiles.
        pinned = self._layout(archs=[stages.Arch("compute_80", ("sm_80",))], pinned_arch_list="750,800,900")
        self.assertEqual(pinned.registration_arch, "compute_90")
        self.assertEqual(again.real_keys, ["compute_80/sm_80", "compute_80/sm_86", "compute_90/sm_90"])

    def test_a_missing_or_extra_key_is_refused(self):
        obj = self._layout().to_json()
        del obj["scripts"]["embed_fatbin"]
        with self.assertRaisesRegex(layout_lib.LayoutError, r"missing \['embed_fatbin'\]"):
            layout_lib.compile_layout_from_json(obj)
        obj = self._layout().to_json()
        obj["files"]["cpp1/compute_70"] = "compute_70/k.cpp1.ii"  # an arch the build neither compiles nor preprocesses
        with self.assertRaisesRegex(layout_lib.LayoutError, r"unexpected \['cpp1/compute_70'\]"):
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
        graph = stage_graph.unit_graph(stages.LINK_TABLE, link_archs=["sm_90"], name="t")
        obj = {
            "label": "//p:t", "name": "t", "directory": d, "toolkit_root": "/proc/self/cwd/external/cuda",
            "archs": ["sm_90"], "lto": False, "non_rdc": [], "objects": ["a.o"],
            "markers": [["rules_cuda_stages__no_device_link_for__p_a__p_a_cu", "rules_cuda_stages__device_linked_twice__p_a__p_a_cu"]],
            "inputs": {"sm_90": [{"code": "elf", "image": "x.cubin", "script": "x.sh", "name": "//p:a (p/a.cu)"}]},
            "files": {k: d + "/" + v for k, v in graph["files"].items()},
            "scripts": {k: d + "/" + v for k, v in graph["scripts"].items()},
        }
        layout = layout_lib.link_layout_from_json(obj)
        self.assertEqual(layout.files["cubin/sm_90"], d + "/sm_90/t.cubin")
        obj["inputs"]["sm_90"][0]["code"] = "bitcode"
        with self.assertRaisesRegex(layout_lib.LayoutError, "not elf, nvvm or object"):
            layout_lib.link_layout_from_json(obj)


if __name__ == "__main__":
    unittest.main()
