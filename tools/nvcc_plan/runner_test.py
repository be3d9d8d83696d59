"""`nvcc_plan --run` (runner.py) with the hermetic toolkit's real nvcc.

  - its PTX and cubins equal `nvcc --keep`'s modulo the module id, and its
    object equals nvcc's but for the name of the host compile's input file;
  - two runs from two directories (sources of different mtimes, -lineinfo)
    give byte-identical objects;
  - given a cuda_library target's recorded nvcc arguments in a directory laid
    out like the execroot, it writes the rules' scripts and module id and
    builds the rules' PTX, cubins, fatbinary and object, byte for byte;
  - a failing stage's exit status and message come back, naming the stage;
  - --table has one CSV row per stage, -j bounds how many run at once, the
    graph holds every dependency and no stage starts before its inputs;
  - the command line works as a plain script without bazel-runfiles.
"""

import csv
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from runfiles import runfiles

from tests.fidelity import nvcc_compare
from tools.fatbin import fatbin_lib
from tools.nvcc_plan import dryrun
from tools.nvcc_plan import stages
from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import runner

_FIXTURE = "tools/nvcc_plan/_cuda/runner_fixture/testdata/run/axpy-kernel"
_GENCODE = ["-gencode=arch=compute_80,code=[sm_80]", "-gencode=arch=compute_90,code=[sm_90,compute_90]"]


def _runfiles_root():
    marker = runfiles.Create().Rlocation("rules_cuda_stages/tools/nvcc_plan/runner_test.py")
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(marker))))


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _elf(path):
    """{section name: bytes} and the symbols [(name, info, other, shndx, value, size)] of an ELF64 object."""
    elf = nvcc_compare.elf_full(path)
    return elf["sections"], [(s["name"], s["info"], s["other"], s["shndx"], s["value"], s["size"]) for s in elf["symbols"]]


class CheckArgsTest(unittest.TestCase):
    def test_threads_are_dropped(self):
        args, notes = runner.check_nvcc_args(["-c", "k.cu", "-t", "4", "--threads=2", "-t8", "-o", "k.o"])
        self.assertEqual(args, ["-c", "k.cu", "-o", "k.o"])
        self.assertEqual(len(notes), 3)
        self.assertIn("dropped `-t 4`", notes[0])

    def test_modes_other_than_one_compile_are_refused(self):
        for extra in (["-dc"], ["-dlink"],
                      ["-E"], ["-ptx"], ["-cubin"], ["-MD"], ["--keep"], ["-lib"], ["--dryrun"]):
            with self.subTest(extra=extra):
                with self.assertRaisesRegex(runner.RunError, "use plain nvcc") as e:
                    runner.check_nvcc_args(["-c", "k.cu"] + extra)
                self.assertIn(extra[0], str(e.exception))

    def test_values_of_other_tools_are_not_nvcc_options(self):
        args = ["-c", "k.cu", "-rdc=false", "-Xcompiler", "-MD", "-Xcompiler=-E", "-Xptxas", "-v"]
        self.assertEqual(runner.check_nvcc_args(args), (args, []))

    def test_split_compile_threads_and_cpus(self):
        self.assertEqual(runner.split_compile_threads(["-c", "k.cu"]), 1)
        self.assertEqual(runner.split_compile_threads(["--split-compile=4", "-c", "-split-compile", "2"]), 2)
        with self.assertRaises(runner.RunError):
            runner.split_compile_threads(["--split-compile=all"])
        # The same cases as the rules' (//tests/cuda_library:split_compile_rules_test, splits_stage).
        self.assertEqual(runner.stage_cpus(stages.CICC, 4, "12.4", 16), 4)
        self.assertEqual(runner.stage_cpus(stages.CICC, 4, "13.0", 16, "compute_90"), 4)
        self.assertEqual(runner.stage_cpus(stages.CICC, 4, "13.0", 16, "compute_100"), 1)
        self.assertEqual(runner.stage_cpus(stages.PTXAS, 4, "13.0", 16, "sm_100"), 4)
        self.assertEqual(runner.stage_cpus(stages.PTXAS, 4, "12.4", 16), 1)
        self.assertEqual(runner.stage_cpus(stages.PTXAS, 0, "13.0", 16), 16)
        self.assertEqual(runner.stage_cpus(stages.PTXAS, 4, "13.5", 16), 4)
        self.assertEqual(runner.stage_cpus(stages.CICC, 1, "13.0", 16), 1)
        for stage in (stages.PREPROCESS, stages.FRONTEND, stages.HOST_COMPILE, stages.EMBED_FATBIN):
            self.assertEqual(runner.stage_cpus(stage, 4, "13.0", 16), 1, stage.mnemonic)

    def test_a_compile_is_required(self):
        with self.assertRaisesRegex(runner.RunError, "no -c"):
            runner.check_nvcc_args(["k.cu", "-o", "k"])


class RunnerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = _runfiles_root()
        cls.fixture = os.path.join(cls.root, "_main", _FIXTURE)
        cls.layout = layout_lib.load_compile(os.path.join(cls.fixture, "plan", "layout.json"))
        with open(os.path.join(cls.fixture, "plan", "nvcc_args.json")) as f:
            cls.nvcc_args = json.load(f)
        cls.toolkit_repo = os.path.basename(cls.layout.toolkit_root)
        cls.nvcc = os.path.join(cls.root, cls.toolkit_repo, "bin", "nvcc")
        # The C++ toolchain's compiler, which this toolkit accepts (the host's may be too new).
        cls.ccbin = ["-ccbin", cls.nvcc_args[cls.nvcc_args.index("-ccbin") + 1]]
        cls.sources = {
            "axpy-kernel.cu": os.path.join(cls.root, "_main/tools/nvcc_plan/testdata/run/axpy-kernel.cu"),
            "plain_kernel.cu": os.path.join(cls.root, "_main/tests/fidelity/srcs/plain_kernel.cu"),
            "broken_sm90.cu": os.path.join(cls.root, "_main/tools/nvcc_plan/testdata/run/broken_sm90.cu"),
        }

    def _dir(self, *sources):
        d = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        for name in sources:
            shutil.copy(self.sources[name], os.path.join(d, name))
        return d

    def _run(self, args, cwd, **kwargs):
        out, err = io.StringIO(), io.StringIO()
        kwargs.setdefault("nvcc", self.nvcc)
        rc = runner.run(args, runner.RunOptions(cwd=cwd, stdout=out, stderr=err, **kwargs))
        return rc, out.getvalue(), err.getvalue()

    def _run_ok(self, args, cwd, **kwargs):
        rc, out, err = self._run(args, cwd, **kwargs)
        self.assertEqual(rc, 0, err)
        return out, err

    # (a) ---------------------------------------------------------------------

    def _against_nvcc_keep(self, name, fatbin_bytes_equal, extra=()):
        stem = name.rpartition(".")[0]
        d = self._dir(name)
        args = self.ccbin + _GENCODE + list(extra) + ["-c", name, "-o", stem + ".o"]
        self._run_ok(args, d, keep_dir="keep")
        ref_args = self.ccbin + _GENCODE + list(extra) + ["-c", name, "-o", "ref/%s.o" % stem, "--keep", "--keep-dir", "ref"]
        os.makedirs(os.path.join(d, "ref"))
        subprocess.run([self.nvcc] + ref_args, cwd=d, check=True, capture_output=True)
        plan = dryrun.plan_from_text(dryrun.run_dryrun(self.nvcc, ref_args, cwd=d))
        ours_id = _read(os.path.join(d, "keep", stem + ".module_id"))
        theirs_id = _read(glob.glob(os.path.join(d, "ref", "*.module_id"))[0])
        self.assertEqual(len(ours_id), len(theirs_id), (ours_id, theirs_id))
        self.assertEqual(ours_id, b"_00000000_%d_%s_%08x" % (len(name), re.sub(rb"[^A-Za-z0-9]", b"_", name.encode()), _hash(name)))

        def ours(path):
            return _read(os.path.join(d, path)).replace(ours_id, theirs_id)

        pairs = []
        for cicc in plan.by_step(stages.STEP_CICC):
            pairs.append(("keep/%s/%s.ptx" % (cicc.arch, stem), dryrun.value_after(cicc.argv, "-o")))
        for ptxas in plan.by_step(stages.STEP_PTXAS):
            pairs.append(("keep/%s/%s/%s.cubin" % (ptxas.virtual_arch, ptxas.arch, stem), ptxas.outputs[0]))
        self.assertEqual(len(pairs), 4)
        for mine, theirs in pairs:
            with self.subTest(file=mine):
                self.assertEqual(ours(mine), _read(os.path.join(d, theirs)))

        self._check_object_against_nvcc(
            os.path.join(d, stem + ".o"), os.path.join(d, "ref", stem + ".o"), ours_id, theirs_id,
            {stem + ".cudafe1.cpp": os.path.basename(plan.by_step(stages.STEP_HOST_CC)[0].inputs[0])},
        )
        sections = _elf(os.path.join(d, stem + ".o"))[0]
        ref_sections = _elf(os.path.join(d, "ref", stem + ".o"))[0]
        # The embedded fatbinary is the fatbinary stage's output and holds both cubins and the PTX.
        self.assertEqual(sections[".nv_fatbin"], _read(os.path.join(d, "keep", stem + ".fatbin")))
        self.assertEqual(
            sorted(i.name + ":" + i.kind for i in fatbin_lib.read_images(_read(os.path.join(d, stem + ".o")))),
            ["compute_90:ptx", "sm_80:elf", "sm_90:elf"],
        )
        if fatbin_bytes_equal:
            self.assertEqual(sections[".nv_fatbin"], ref_sections[".nv_fatbin"])
        return ours_id, pairs, d

    def test_a_ptx_and_cubins_equal_nvcc_keep_modulo_module_id(self):
        # fatbinary compresses the PTX it embeds: the ids cannot be swapped inside the fatbinary.
        ours_id, pairs, d = self._against_nvcc_keep("axpy-kernel.cu", fatbin_bytes_equal=False)
        # Not vacuous: the id is in the device code (the anonymous namespace's variable).
        self.assertIn(ours_id, _read(os.path.join(d, pairs[0][0])))

    def test_a_fatbinary_equals_nvcc_keep_without_module_id_in_device_code(self):
        ours_id, pairs, d = self._against_nvcc_keep("plain_kernel.cu", fatbin_bytes_equal=True)
        self.assertNotIn(ours_id, _read(os.path.join(d, pairs[0][0])))

    def test_a_relocatable_and_lto_code(self):
        # -rdc=true: a relocatable cubin for sm_80 (equal to nvcc's modulo the
        # module id) and NVVM IR for lto_90 (compressed, so the id cannot be
        # swapped in it: checked reproducible and device-linkable instead).
        name, stem = "plain_kernel.cu", "plain_kernel"
        gencode = ["-rdc=true", "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=lto_90"]
        d = self._dir(name)
        self._run_ok(self.ccbin + gencode + ["-c", name, "-o", stem + ".o"], d, keep_dir="keep")
        ref_args = self.ccbin + gencode + ["-c", name, "-o", "ref/%s.o" % stem, "--keep", "--keep-dir", "ref"]
        os.makedirs(os.path.join(d, "ref"))
        subprocess.run([self.nvcc] + ref_args, cwd=d, check=True, capture_output=True)
        ours_id = _read(os.path.join(d, "keep", stem + ".module_id"))
        theirs_id = _read(glob.glob(os.path.join(d, "ref", "*.module_id"))[0])
        cubin = "keep/compute_80/sm_80/%s.cubin" % stem
        self.assertEqual(
            _read(os.path.join(d, cubin)).replace(ours_id, theirs_id),
            _read(glob.glob(os.path.join(d, "ref", "*compute_80.cubin"))[0]),
        )
        other = self._dir(name)
        self._run_ok(self.ccbin + gencode + ["-c", name, "-o", stem + ".o"], other, keep_dir="keep")
        ltoir = "keep/compute_90/%s.ltoir" % stem
        self.assertEqual(_read(os.path.join(d, ltoir)), _read(os.path.join(other, ltoir)))
        self.assertEqual(_read(os.path.join(d, stem + ".o")), _read(os.path.join(other, stem + ".o")))
        link = subprocess.run(
            [self.nvcc] + self.ccbin + ["-dlink", "-dlto", "-gencode", "arch=compute_80,code=sm_80",
                                        "-gencode", "arch=compute_90,code=sm_90", stem + ".o", "-o", "dlink.o"],
            cwd=d, capture_output=True, text=True)
        self.assertEqual(link.returncode, 0, link.stderr)

    def _check_object_against_nvcc(self, ours_path, ref_path, ours_id, theirs_id, file_names):
        """The source's object against nvcc's: the same code, data, symbols and relocations but for how the
        fatbinary's wrapper is named (tests/fidelity/nvcc_compare.py)."""
        self.assertEqual(nvcc_compare.object_differences(ours_path, ref_path, ours_id, theirs_id, file_names), [])

    # (b) ---------------------------------------------------------------------

    def test_b_same_object_from_two_directories(self):
        one = self._dir("axpy-kernel.cu")
        two = os.path.join(self._dir(), "deeper", "checkout")
        os.makedirs(two)
        shutil.copy(self.sources["axpy-kernel.cu"], two)
        os.utime(os.path.join(two, "axpy-kernel.cu"), (1e9, 1e9))  # ptxas must not see the source's mtime
        # -lineinfo: source paths and the working directory reach the PTX.
        args = self.ccbin + _GENCODE + ["-lineinfo", "-c", "axpy-kernel.cu", "-o", "k.o"]
        self._run_ok(args, one)
        self._run_ok(args, two, keep_dir="stages", jobs=1)
        self.assertEqual(_read(os.path.join(one, "k.o")), _read(os.path.join(two, "k.o")))
        self.assertIn(b'"/proc/self/cwd/axpy-kernel.cu"', _read(os.path.join(two, "stages/compute_80/axpy-kernel.ptx")))

    # (c) ---------------------------------------------------------------------

    def _scratch_execroot(self):
        """A directory laid out like the execroot: the workspace's files, external/<repo>, a writable bazel-out."""
        d = tempfile.mkdtemp(prefix="execroot.", dir=os.environ.get("TEST_TMPDIR"))
        os.makedirs(os.path.join(d, "external"))
        for entry in os.listdir(self.root):
            if entry == "_main":
                for top in os.listdir(os.path.join(self.root, "_main")):
                    if top not in ("external", "bazel-out"):
                        os.symlink(os.path.join(self.root, "_main", top), os.path.join(d, top))
            elif os.path.isdir(os.path.join(self.root, entry)):
                os.symlink(os.path.join(self.root, entry), os.path.join(d, "external", entry))
        return d

    def test_c_outputs_equal_the_staged_rules(self):
        execroot = self._scratch_execroot()
        keep = os.path.dirname(self.layout.module_id_file)  # bazel-out/<cfg>/bin/<package>/_cuda/<target>/<source>
        label = self.layout.label
        self.assertTrue(label.startswith("@@//"), label)
        _, err = self._run_ok(
            self.nvcc_args,
            execroot,
            nvcc="/proc/self/cwd/external/%s/bin/nvcc" % self.toolkit_repo,  # as the CudaPlan action runs it
            keep_dir=keep,
            module_id_label=label[2:],
            # The fixture's archs are a subset of the shipped set: its stages have the shipped set's list.
            pinned_arch_list=self.layout.pinned_arch_list,
            # Its C++ toolchain's flags reach its device preprocess as the device ones only.
            toolchain_flags=(self.layout.host_toolchain_flags, self.layout.device_toolchain_flags),
        )
        self.assertEqual(err, "")
        self.assertEqual(self.layout.pinned_arch_list, "750,800,860,900")

        def staged(path):  # bazel-out/<cfg>/bin/<short path> -> the runfile
            return _read(os.path.join(self.root, "_main", path.split("/", 3)[3]))

        compared = []

        def check(path):
            with self.subTest(file=path):
                self.assertEqual(_read(os.path.join(execroot, path)), staged(path))
            compared.append(path)

        check(self.layout.module_id_file)
        check(self.layout.nvcc_args_file)
        check(self.layout.files["fatbin_decl"])
        for script in self.layout.scripts.values():
            check(script)
        files = self.layout.files
        for key in sorted(files):
            if key.startswith(("ptx/", "cubin/", "cpp1/")) or key in ("cpp4", "registration_stub", "fatbin", "obj"):
                check(files[key])
        # CudaPlan's 3 files and 8 scripts, the preprocessed host side and 4 archs' device side (the
        # shipped set's: 2 of them made from another arch's command), 2 PTX, 2 cubins, the registration
        # stub, the fatbinary and the object.
        self.assertEqual(len(compared), 3 + 8 + 1 + 4 + 2 + 2 + 1 + 2)
        # -lineinfo: the cubins would record the sources' times had ptxas seen them.
        self.assertIn("-lineinfo", self.nvcc_args)
        # The toolchain's host-only flags are in the host stages, not in the device preprocess.
        self.assertIn("-Xcompiler=-Wall", self.nvcc_args)
        self.assertIn(" -Wall ", _read(os.path.join(execroot, self.layout.scripts["host_compile"])).decode())
        # (every arch's device preprocess is a line of the preprocess script)
        script = _read(os.path.join(execroot, self.layout.scripts["preprocess"])).decode()
        device = [line for line in script.splitlines() if " -D__CUDA_ARCH__=" in line]
        self.assertEqual(len(device), len(self.layout.preprocessed_archs))
        for line in device:
            self.assertNotIn(" -Wall ", line)
        self.assertIn(" -Wall ", [line for line in script.splitlines() if " -E " in line and line not in device][0])

    # (d) ---------------------------------------------------------------------

    def test_d_failing_stage_propagates_status_and_message(self):
        d = self._dir("broken_sm90.cu")
        args = self.ccbin + _GENCODE + ["-c", "broken_sm90.cu", "-o", "broken.o"]
        rc, _, err = self._run(args, d)
        nvcc = subprocess.run([self.nvcc] + args[:-1] + ["nvcc.o"], cwd=d, capture_output=True, text=True)
        self.assertNotEqual(rc, 0)
        self.assertEqual(rc, nvcc.returncode)
        self.assertIn('#error "runner test: no sm_90 here"', err)
        # compute_90's device preprocess fails, in the one preprocess action.
        self.assertRegex(err, r"stage preprocess \(CudaPreprocess\) failed with exit code %d" % rc)
        self.assertFalse(os.path.exists(os.path.join(d, "broken.o")))

    def test_d_exit_status_is_the_stages_own(self):
        d = self._dir("plain_kernel.cu")
        args = self.ccbin + ["-arch=sm_80", "-Xptxas=--no-such-option", "-c", "plain_kernel.cu", "-o", "k.o"]
        rc, _, err = self._run(args, d)
        ptxas = subprocess.run(
            [os.path.join(os.path.dirname(self.nvcc), "ptxas"), "--no-such-option"], capture_output=True
        )
        self.assertNotIn(ptxas.returncode, (0, 1))  # a status other than 1, so passing it on is visible
        self.assertEqual(rc, ptxas.returncode, err)
        self.assertRegex(err, r"stage ptxas/compute_80/sm_80 \(CudaPtxas\) failed with exit code %d" % rc)

    def test_d_ptx_only_arch_is_checked_as_nvcc_checks_it(self):
        # nvcc runs `ptxas -arch=compute_90` on the PTX of an arch embedded with no cubin of its own,
        # and fails where ptxas refuses it: CudaCicc of that arch runs the same check (the fidelity
        # fuzzer's case 1749: a ptxas warning under -Werror=all-warnings), and only for that arch.
        d = self._dir("plain_kernel.cu")
        args = self.ccbin + ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=compute_90",
                             "-Xptxas=--no-such-option", "-c", "plain_kernel.cu", "-o", "k.o"]
        nvcc = subprocess.run([self.nvcc] + args[:-1] + ["nvcc.o"], cwd=d, capture_output=True, text=True)
        self.assertNotEqual(nvcc.returncode, 0)
        rc, _, err = self._run(args, d, keep_dir="keep", jobs=1)
        self.assertNotEqual(rc, 0)
        self.assertRegex(err, r"stage (cicc/compute_90 \(CudaCicc\)|ptxas/compute_80/sm_80 \(CudaPtxas\)) failed")
        self.assertIn("no-such-option", err)
        d = self._dir("plain_kernel.cu")
        ok = self.ccbin + ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=compute_90",
                           "-c", "plain_kernel.cu", "-o", "k.o"]
        self._run_ok(ok, d, keep_dir="keep")
        with open(os.path.join(d, "keep", "plan", "cicc.compute_90.sh")) as f:
            checked = [l for l in f if re.search(r"/ptxas'? ", l)]
        self.assertEqual(len(checked), 1, checked)
        self.assertIn("-arch=compute_90", checked[0])
        self.assertIn("keep/compute_90/plain_kernel.ptx", checked[0])
        with open(os.path.join(d, "keep", "plan", "cicc.compute_80.sh")) as f:
            self.assertNotRegex(f.read(), r"/ptxas'? ")
        # Under -Werror=all-warnings ptxas's warning is an error for nvcc and for the check alike.
        d = self._dir("plain_kernel.cu")
        werror = self.ccbin + ["-arch=compute_90", "-Werror=all-warnings", "-Xptxas=-warn-spills", "-maxrregcount=16",
                               "-c", "plain_kernel.cu", "-o", "k.o"]
        nvcc = subprocess.run([self.nvcc] + werror[:-1] + ["nvcc.o"], cwd=d, capture_output=True, text=True)
        rc, _, err = self._run(werror, d)
        self.assertEqual(rc == 0, nvcc.returncode == 0, (nvcc.stderr, err))

    def test_d_several_sources_are_refused(self):
        d = self._dir("plain_kernel.cu", "axpy-kernel.cu")
        rc, _, err = self._run(self.ccbin + ["-arch=sm_80", "-c", "plain_kernel.cu", "axpy-kernel.cu"], d)
        self.assertEqual(rc, 1)
        self.assertIn("compiles 2 CUDA sources", err)
        self.assertIn("use plain nvcc", err)

    # (e) ---------------------------------------------------------------------

    def _table_run(self, jobs, extra=()):
        d = self._dir("axpy-kernel.cu")
        args = self.ccbin + _GENCODE + list(extra) + ["-c", "axpy-kernel.cu", "-o", "k.o"]
        out, err = self._run_ok(args, d, jobs=jobs, table="-", graph="graph.dot", keep_dir="keep")
        rows = list(csv.DictReader(io.StringIO(out)))
        with open(os.path.join(d, "graph.dot")) as f:
            dot = f.read()
        return rows, err, dot

    def test_e_table_has_one_row_per_stage(self):
        rows, err, dot = self._table_run(jobs=2)
        self.assertEqual(list(rows[0]), runner.TABLE_COLUMNS)
        self.assertEqual(
            sorted(r["stage"] for r in rows),
            sorted([
                "plan", "frontend", "host_compile", "embed_fatbin",
                "preprocess", "cicc/compute_80", "cicc/compute_90",
                "ptxas/compute_80/sm_80", "ptxas/compute_90/sm_90",
            ]),
        )
        for r in rows:
            start, end, wall, cpu = (float(r[c]) for c in ("start_s", "end_s", "wall_s", "cpu_s"))
            self.assertLessEqual(start, end)
            self.assertAlmostEqual(wall, end - start, delta=0.0015)
            self.assertGreaterEqual(cpu, 0.0)
            self.assertTrue(r["mnemonic"].startswith("Cuda"), r)
        by_stage = {r["stage"]: r for r in rows}
        self.assertEqual(by_stage["ptxas/compute_80/sm_80"]["arch"], "sm_80")
        self.assertEqual(by_stage["cicc/compute_90"]["mnemonic"], "CudaCicc")
        self.assertGreater(sum(float(r["cpu_s"]) for r in rows if r["stage"].startswith("cicc/")), 0.0)
        self.assertRegex(err, r"nvcc_plan: 9 stages, -j 2: wall [0-9.]+ s, CPU [0-9.]+ s .*critical path [0-9.]+ s: plan -> ")
        # The graph: every stage, every dependency; no stage starts before what it reads is written.
        self.assertEqual(sorted(re.findall(r'^  "([^"]+)" \[label=', dot, re.M)), sorted(by_stage))
        edges = re.findall(r'^  "([^"]+)" -> "([^"]+)"', dot, re.M)
        # plan -> preprocess; the preprocess -> the front ends and both ciccs (compute_90's, the stub's
        # arch, is whole too: cicc_split.py), per real arch ptxas, host compile (the front ends: no
        # device code), the object and its fatbinary (host compile, 2 cubins + the compute_90 PTX).
        self.assertEqual(len(edges), 1 + 3 + 2 + 1 + 4)
        self.assertIn(("preprocess", "cicc/compute_80"), edges)
        self.assertIn(("preprocess", "cicc/compute_90"), edges)
        self.assertNotIn(("frontend", "cicc/compute_90"), edges)
        self.assertNotIn(("cicc/compute_90", "host_compile"), edges)
        self.assertIn(("frontend", "host_compile"), edges)
        self.assertNotIn(("embed_fatbin", "host_compile"), edges)
        for a, b in edges:
            self.assertLessEqual(float(by_stage[a]["end_s"]), float(by_stage[b]["start_s"]), (a, b))
        self.assertIn('"host_compile" [label="CudaHostCompile\\n', dot)

    def test_e_jobs_bound_concurrency(self):
        for jobs in (1, 3):
            rows, _, _ = self._table_run(jobs=jobs)
            events = sorted([(float(r["start_s"]), 1) for r in rows] + [(float(r["end_s"]), -1) for r in rows])
            running, most = 0, 0
            for _, step in events:  # an end sorts before a start at the same time
                running += step
                most = max(most, running)
            with self.subTest(jobs=jobs):
                self.assertLessEqual(most, jobs)
                if jobs > 1:
                    self.assertGreater(most, 1)  # it did run stages in parallel

    def test_e_split_compile_threads_count_against_jobs(self):
        # cicc (and, from 13.0, ptxas) run 2 threads each: each takes 2 of -j 3's CPUs.
        rows, _, _ = self._table_run(jobs=3, extra=["--split-compile=2"])
        version = self.toolkit_repo.split("cuda_")[-1].split("_x86_64")[0].replace("_", ".")
        split = {"CudaCicc": 2, "CudaPtxas": 1 if version == "12.4" else 2}
        events = sorted([(float(r["start_s"]), split.get(r["mnemonic"], 1)) for r in rows] +
                        [(float(r["end_s"]), -split.get(r["mnemonic"], 1)) for r in rows])
        used, most = 0, 0
        for _, step in events:
            used += step
            most = max(most, used)
        self.assertLessEqual(most, 3)
        ciccs = [r for r in rows if r["mnemonic"] == "CudaCicc"]
        self.assertEqual(len(ciccs), 2)
        a, b = sorted(ciccs, key=lambda r: float(r["start_s"]))
        self.assertLessEqual(float(a["end_s"]), float(b["start_s"]))  # never two at once

    def test_a_split_compile_equals_nvcc_with_it(self):
        # The registration arch's cicc is the whole cicc, with nvcc's -split-compile 2 (cicc_split.py).
        _, _, d = self._against_nvcc_keep("axpy-kernel.cu", fatbin_bytes_equal=False, extra=["--split-compile=2"])
        with open(os.path.join(d, "keep", "plan", "cicc.compute_90.sh")) as f:
            self.assertIn(" -split-compile 2 ", f.read())

    # The command line, as on a machine without Bazel -------------------------

    def test_command_line_without_bazel_runfiles(self):
        d = self._dir("axpy-kernel.cu")
        script = os.path.join(self.root, "_main/tools/nvcc_plan/nvcc_plan.py")
        import absl  # pylint: disable=g-import-not-at-top

        env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNFILES", "PYTHON", "BUILD_"))}
        env["PYTHONPATH"] = os.path.dirname(os.path.dirname(absl.__file__))  # absl-py, nothing else
        code = (
            "import runpy, sys; sys.modules['runfiles'] = None; "  # `import runfiles` fails, as without it installed
            "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
        )
        argv = [script, "--run", "-j", "2", "--table", "--nvcc=" + self.nvcc, "--"]
        argv += self.ccbin + _GENCODE + ["-t", "2", "-c", "axpy-kernel.cu", "-o", "k.o"]
        proc = subprocess.run([sys.executable, "-c", code] + argv, cwd=d, env=env, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("dropped `-t 2`", proc.stderr)
        self.assertIn("-j 2", proc.stderr)
        self.assertEqual(len(list(csv.DictReader(io.StringIO(proc.stdout)))), 9)
        self.assertEqual(
            sorted(i.name for i in fatbin_lib.read_images(_read(os.path.join(d, "k.o")))),
            ["compute_90", "sm_80", "sm_90"],
        )
        self.assertFalse(glob.glob(os.path.join(d, "*.ii")) + glob.glob(os.path.join(d, "*.cubin")))


def _hash(text):
    value = 0
    for b in text.encode():
        value = (value * 31 + b) & 0xFFFFFFFF
    return value


if __name__ == "__main__":
    unittest.main()
