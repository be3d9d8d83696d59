"""clang_dryrun and clang_scripts against a plan recorded from clang 21.1.8 with CUDA 12.4 (testdata/)."""

import os
import tempfile
import unittest

from runfiles import runfiles

from tools.nvcc_plan import clang_dryrun
from tools.nvcc_plan import clang_scripts
from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import scripts as scripts_lib
from tools.nvcc_plan import stage_graph
from tools.nvcc_plan import stages

# `clang -### -x cuda --cuda-path=external/cuda --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_86
# --cuda-gpu-arch=sm_90 --no-cuda-include-ptx=all --cuda-include-ptx=sm_90 ... -c pkg/k.cu -o _cuda/k/k/k.o`
_PLAN = "clang21_cuda12.4_3arch.txt"
# The same with -fgpu-rdc --no-offload-new-driver, for pkg/s.cu at sm_80,sm_90 (-o _cuda/s/s/s.o).
_RDC_PLAN = "clang21_cuda12.4_rdc.txt"
_DRIVER = "/opt/clang/bin/clang"
_ARCHS = [
    stages.Arch("compute_80", ("sm_80",)),
    stages.Arch("compute_86", ("sm_86",)),
    stages.Arch("compute_90", ("sm_90",), ptx=True),
]


def _read(name):
    path = runfiles.Create().Rlocation("rules_cuda_stages/tools/nvcc_plan/testdata/" + name)
    with open(path) as f:
        return f.read()


def _layout(archs=_ARCHS, table="clang", stem="k", rdc=False):
    directory = "_cuda/%s/%s" % (stem, stem)
    graph = stage_graph.unit_graph(
        stages.CLANG_TABLE, virtuals=archs, stem=stem, registration=stage_graph.registration_arch(archs, ""), device_object=rdc
    )
    return layout_lib.CompileLayout(
        label="@@//pkg:" + stem,
        display_label="//pkg:" + stem,
        src="pkg/%s.cu" % stem,
        src_short_path="pkg/%s.cu" % stem,
        stem=stem,
        directory=directory,
        toolkit_root="external/cuda",
        archs=archs,
        rdc=rdc,
        link_marker="rules_cuda_stages__no_device_link_for__pkg_s__pkg_s_cu" if rdc else "",
        pinned_arch_list="",
        user_options=[],
        files={k: os.path.join(directory, v) for k, v in graph["files"].items()},
        scripts={k: os.path.join(directory, v) for k, v in graph["scripts"].items()},
        table=table,
    ).validate()


class ParseTest(unittest.TestCase):
    def test_jobs_and_archs(self):
        version, plan = clang_dryrun.parse(_read(_PLAN))
        self.assertEqual(version, "21.1.8")
        self.assertEqual(
            [(c.step, c.arch, c.virtual_arch) for c in plan.commands],
            [
                (stages.STEP_CLANG_DEVICE, "sm_80", ""),
                (stages.STEP_PTXAS, "sm_80", "compute_80"),
                (stages.STEP_CLANG_DEVICE, "sm_86", ""),
                (stages.STEP_PTXAS, "sm_86", "compute_86"),
                (stages.STEP_CLANG_DEVICE, "sm_90", ""),
                (stages.STEP_PTXAS, "sm_90", "compute_90"),
                (stages.STEP_FATBINARY, "", ""),
                (stages.STEP_CLANG_HOST, "", ""),
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
        out = self.lib.for_source(self.plan, layout, _DRIVER)
        self.assertEqual(sorted(out), sorted(layout.scripts.values()))
        for content in out.values():
            self.assertNotIn(clang_dryrun.PLAN_TMPDIR, content)

    def test_declared_files_in_the_commands(self):
        layout = _layout()
        out = self.lib.for_source(self.plan, layout, _DRIVER)
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
        out = self.lib.for_source(self.plan, layout, _DRIVER)
        self.assertNotIn("ptxas/compute_90/sm_90", layout.scripts)
        fat = out[layout.scripts["fatbinary"]]
        self.assertNotIn("sm=90,file=" + layout.files["ptx/compute_90"].replace(".ptx", ".cubin"), fat)
        self.assertNotIn("kind=elf,sm=90", fat)
        self.assertIn("kind=ptx,sm=90", fat)

    def test_plan_with_other_archs_fails(self):
        layout = _layout(_ARCHS[:2] + [stages.Arch("compute_89", ("sm_89",), ptx=True)])
        with self.assertRaisesRegex(scripts_lib.PlanMismatch, "clang plans (clang_device|ptxas) for"):
            self.lib.for_source(self.plan, layout, _DRIVER)

    def test_embedded_ptx_must_match(self):
        layout = _layout(_ARCHS[:2] + [stages.Arch("compute_90", ("sm_90",))])
        with self.assertRaisesRegex(scripts_lib.PlanMismatch, "embeds the PTX of"):
            self.lib.for_source(self.plan, layout, _DRIVER)

    def test_a_virtual_arch_with_another_real_arch_fails(self):
        layout = _layout([stages.Arch("compute_80", ("sm_86",))])
        with self.assertRaisesRegex(scripts_lib.PlanMismatch, "compute_80 with cubins sm_86"):
            self.lib.check_archs(layout)

    def test_an_nvcc_layout_is_refused(self):
        layout = _layout()
        layout.table = "compile"
        with self.assertRaisesRegex(scripts_lib.PlanMismatch, "compile table"):
            self.lib.for_source(self.plan, layout, _DRIVER)


class RelocatableTest(unittest.TestCase):
    """-fgpu-rdc with the old offload driver: nvlink device-links each arch's relocatable cubin."""

    def setUp(self):
        from tools.nvcc_plan import clang_scripts

        self.lib = clang_scripts
        _, self.plan = clang_dryrun.parse(_read(_RDC_PLAN))
        self.archs = [stages.Arch("compute_80", ("sm_80",)), stages.Arch("compute_90", ("sm_90",))]

    def test_scripts(self):
        layout = _layout(self.archs, stem="s", rdc=True)
        out = self.lib.for_source(self.plan, layout, _DRIVER)
        self.assertEqual(sorted(out), sorted(layout.scripts.values()))
        files = layout.files
        self.assertIn("-fgpu-rdc", out[layout.scripts["clang_host"]])
        # ptxas writes relocatable code (-c).
        self.assertTrue(out[layout.scripts["ptxas/compute_90/sm_90"]].rstrip().endswith(" -c"))
        embed = out[layout.scripts["clang_embed"]]
        self.assertIn('"$1" __nv_relfatbin %s %s "$tmp/spliced.o"' % (files["fatbin"], files["host_obj"]), embed)
        self.assertIn("section(\"%s\")" % self.lib.CHECK_SECTION, embed)
        self.assertIn(layout.link_marker, embed)
        self.assertIn(
            '%s -r -nostdlib -Wl,--build-id=none -o %s "$tmp/check.o" "$tmp/spliced.o"' % (_DRIVER, files["obj"]), embed
        )
        device_object = out[layout.scripts[stages.DEVICE_OBJECT_SCRIPT]]
        self.assertIn("-D__NV_MODULE_ID=" + self.lib.rdc_module_id("pkg/s.cu"), device_object)
        self.assertIn("--device-c", device_object)
        self.assertIn("--image3=kind=$1,sm=$2,file=$3", device_object)
        self.assertNotIn("--create", device_object)
        self.assertIn(_DRIVER + " -c -x c++", device_object)

    def test_module_id(self):
        # "__nv_" + hex of the low 64 bits (little-endian) of MD5("<main file>;__cuda_fatbin_wrapper"):
        # what clang 21 wrote in tests/clang/rdc_kernel.cu's object (//tests/clang:clang_rdc_fidelity_test).
        self.assertEqual(self.lib.rdc_module_id("tests/clang/rdc_kernel.cu"), "__nv_d484b9f52ff19f3f")

    def test_whole_program_layout_with_a_relocatable_plan_fails(self):
        layout = _layout(self.archs, stem="s", rdc=False)
        with self.assertRaisesRegex(scripts_lib.PlanMismatch, "clang plans relocatable device code, the rule declared whole-program"):
            self.lib.for_source(self.plan, layout, _DRIVER)



class DeadArchListTest(unittest.TestCase):
    """clang 22's own __CUDA_ARCH_LIST__ goes where the rules' pinned list (-U, then -D) follows it."""

    def setUp(self):
        from tools.nvcc_plan import clang_scripts

        self.drop = clang_scripts.without_dead_arch_list

    def test_the_drivers_definition_before_the_rules_is_dropped(self):
        argv = ["clang", "-cc1", "-D__CUDA_ARCH_LIST__=900", "-DX=1", "-U", "__CUDA_ARCH_LIST__", "-D", "__CUDA_ARCH_LIST__=800,900", "k.cu"]
        self.assertEqual(self.drop(argv), ["clang", "-cc1", "-DX=1", "-U", "__CUDA_ARCH_LIST__", "-D", "__CUDA_ARCH_LIST__=800,900", "k.cu"])

    def test_a_subset_and_the_whole_set_give_one_command(self):
        tail = ["-U", "__CUDA_ARCH_LIST__", "-D", "__CUDA_ARCH_LIST__=800,900", "k.cu"]
        self.assertEqual(self.drop(["clang", "-D__CUDA_ARCH_LIST__=900"] + tail), self.drop(["clang", "-D__CUDA_ARCH_LIST__=800,900"] + tail))

    def test_without_an_undefine_nothing_changes(self):
        # clang 22 outside the shipped set: the driver's list is the only one, and stays.
        argv = ["clang", "-cc1", "-D__CUDA_ARCH_LIST__=900", "k.cu"]
        self.assertEqual(self.drop(argv), argv)

    def test_a_definition_after_the_undefine_stays(self):
        argv = ["clang", "-U__CUDA_ARCH_LIST__", "-D__CUDA_ARCH_LIST__=800,900"]
        self.assertEqual(self.drop(argv), argv)


class MissingClangTest(unittest.TestCase):
    def test_a_clang_absent_where_the_plan_runs_is_one_message_naming_the_fix(self):
        with self.assertRaises(clang_dryrun.dryrun.PlanError) as e:
            clang_dryrun.run("/nonexistent/bin/clang", ["-x", "cuda", "-c", "k.cu"])
        self.assertIn("the compiler /nonexistent/bin/clang (the C++ toolchain's clang", str(e.exception))
        self.assertIn("--@rules_cuda_stages//cuda_rules:host_toolchain=clang22", str(e.exception))


class SourcePresentTest(unittest.TestCase):
    """clang -### stats its input, which a remote executor's input root for CudaPlan lacks."""

    def setUp(self):
        self.cwd = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.layout = _layout()

    def _path(self):
        src = self.layout.src
        return os.path.join(self.cwd, src[len("/proc/self/cwd/") :] if src.startswith("/proc/self/cwd/") else src)

    def test_an_absent_source_is_an_empty_file_while_planning_then_gone(self):
        self.assertFalse(os.path.exists(os.path.dirname(self._path())))
        with clang_scripts._source_present(self.layout, self.cwd):
            with open(self._path()) as f:
                self.assertEqual(f.read(), "")
        self.assertFalse(os.path.exists(self._path()))
        # The directories it made are gone too: the action's input root is as it was.
        self.assertEqual(os.listdir(self.cwd), [])

    def test_a_present_source_is_left_alone(self):
        os.makedirs(os.path.dirname(self._path()))
        with open(self._path(), "w") as f:
            f.write("__global__ void k() {}\n")
        with clang_scripts._source_present(self.layout, self.cwd):
            pass
        with open(self._path()) as f:
            self.assertEqual(f.read(), "__global__ void k() {}\n")


if __name__ == "__main__":
    unittest.main()
