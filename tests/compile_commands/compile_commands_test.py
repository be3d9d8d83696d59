"""compile_commands.json end to end, in a checkout of this repository, verified with clangd itself.

`bazel run //tools:compile_commands -- @rules_cuda_stages_examples//... //tests/cc_toolchain:kernel`
writes an entry for every .cu source (the examples' vector add, templated and
CUB sources and a kernel with an assert) and every C++ source among their
dependencies. Then, for each entry, as an editor would see it:

- `clangd --check=<file>` (compile_commands.json found from the file's
  directory upward) completes with no error;
- clang itself parses the file with the entry's arguments (-fsyntax-only):
  clangd does not report errors in the headers clang's CUDA mode includes
  before the file (its CUDA wrapper), clang does.

With --format=nvcc the .cu entries are the nvcc commands of unstaged
compiles: one of them, run as written, compiles. Built with clang as the CUDA
compiler (compiler=clang), each .cu entry is clang's own driver call, which
clangd checks and clang parses without errors.
"""

import glob
import json
import os
import shlex
import shutil
import subprocess
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout, offline_flags

TARGETS = ["@rules_cuda_stages_examples//...", "//tests/cc_toolchain:kernel"]
# clang as the CUDA compiler (docs/cuda_library.md, "clang as the CUDA compiler"): the examples' CUDA sources.
CLANG_FLAGS = ["--//cuda_rules:compiler=clang", "--//tests/host_clang:clang", "--//cuda_rules:toolkit=12.4"]
CLANG_TARGETS = ["@rules_cuda_stages_examples//..."]
CLANG_CU_FILES = [
    "examples/cub_reduce/sum.cu",
    "examples/driver_api/kernels.cu",
    "examples/templated/scale.cu",
    "examples/vector_add/vector_add.cu",
]
CU_FILES = [
    "examples/cub_reduce/sum.cu",
    "examples/templated/scale.cu",
    "examples/vector_add/vector_add.cu",
    "tests/cc_toolchain/kernel.cu",
]


def _tool(*names):
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


class CompileCommandsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.clangd = os.environ.get("CLANGD") or _tool("clangd-19", "clangd-20", "clangd-21", "clangd")
        cls.clang = os.environ.get("CLANG") or _tool("clang++-19", "clang++-20", "clang++-21", "clang++")
        if not (cls.clangd and cls.clang):
            if offline_flags():
                raise AssertionError("needs clangd and clang++: tools/bazelw's clang addon is not installed; run `tools/bazelw --bazelw-addon clang` (docs/bazelw.md, \"Addons\")")
            raise unittest.SkipTest("no clangd and clang++ on PATH (set CLANGD and CLANG)")
        cls.tmp = os.environ["TEST_TMPDIR"]
        cls.checkout = Checkout(cls.tmp, "editor")
        try:
            cls.entries = cls._generate("compile_commands.json")
            cls.nvcc_entries = cls._generate("nvcc_commands.json", "--format=nvcc")
            # The same sources compiled by clang (compiler=clang, its supported pair): clang's own
            # driver calls, in a directory of their own for clangd --compile-commands-dir.
            os.makedirs(os.path.join(cls.checkout.dir, "clang_db"))
            cls.clang_entries = cls._generate(
                "clang_db/compile_commands.json", *["--bazel_arg=" + f for f in CLANG_FLAGS], targets=CLANG_TARGETS)
        finally:
            checkout_lib.shut_down(cls.checkout)

    @classmethod
    def _generate(cls, output, *extra, targets=TARGETS):
        c = cls.checkout
        tool_args = ["--bazel=" + " ".join(shlex.quote(a) for a in c.startup()), "--output=" + output]
        tool_args += ["--bazel_arg=" + f for f in c.command_flags()]
        c.bazel("run", "//tools:compile_commands", "--", *tool_args, *extra, *targets)
        with open(os.path.join(c.dir, output)) as f:
            return json.load(f)

    def _entry(self, entries, path):
        found = [e for e in entries if e["file"] == path]
        self.assertEqual(len(found), 1, (path, [e["file"] for e in entries]))
        return found[0]

    def test_an_entry_per_source(self):
        files = [e["file"] for e in self.entries]
        for path in CU_FILES:
            self.assertIn(path, files)
        self.assertIn("examples/vector_add/vector_add_demo.cc", files)
        for e in self.entries:
            self.assertEqual(e["directory"], self.checkout.dir)
            self.assertNotIn("/proc/self/cwd", " ".join(e["arguments"]))
        cu = self._entry(self.entries, "examples/cub_reduce/sum.cu")["arguments"]
        self.assertIn("cuda", cu)
        self.assertTrue(any(a.startswith("--cuda-path=") for a in cu))
        self.assertTrue(any(a.endswith("include/cccl") for a in cu), cu)

    def test_clangd_checks_every_file_without_errors(self):
        for e in self.entries:
            with self.subTest(file=e["file"]):
                proc = subprocess.run([self.clangd, "--check=" + e["file"]], cwd=self.checkout.dir,
                                      capture_output=True, text=True, timeout=600)
                log = proc.stdout + proc.stderr
                self.assertIn("All checks completed, 0 errors", log, log[-3000:])
                self.assertEqual(proc.returncode, 0, log[-3000:])

    def test_clang_parses_every_file(self):
        for e in self.entries:
            with self.subTest(file=e["file"]):
                argv = [self.clang] + e["arguments"][1:] + ["-fsyntax-only"]
                proc = subprocess.run(argv, cwd=e["directory"], capture_output=True, text=True, timeout=600)
                self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
                self.assertNotIn("error:", proc.stderr)

    def test_clang_compiled_sources_check_without_errors(self):
        cu = [e for e in self.clang_entries if "cuda" in e["arguments"]]
        self.assertEqual(sorted(e["file"] for e in cu if e["file"].endswith(".cu")), sorted(CLANG_CU_FILES))
        for e in cu:
            with self.subTest(file=e["file"]):
                self.assertIn("--cuda-gpu-arch=sm_90", e["arguments"])
                proc = subprocess.run([self.clangd, "--compile-commands-dir=clang_db", "--check=" + e["file"]],
                                      cwd=self.checkout.dir, capture_output=True, text=True, timeout=600)
                log = proc.stdout + proc.stderr
                self.assertIn("All checks completed, 0 errors", log, log[-3000:])
                # And clang parses it with the entry's own arguments (its driver, as written).
                argv = e["arguments"] + ["-fsyntax-only"]
                argv[argv.index("-o") : argv.index("-o") + 2] = []
                proc = subprocess.run(argv, cwd=e["directory"], capture_output=True, text=True, timeout=600)
                self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])

    def test_nvcc_format_is_the_unstaged_nvcc_command(self):
        e = self._entry(self.nvcc_entries, "examples/vector_add/vector_add.cu")
        argv = list(e["arguments"])
        self.assertTrue(argv[0].endswith("/bin/nvcc"), argv[0])
        self.assertIn("-ccbin", argv)
        self.assertTrue(any(a.startswith("-gencode=") for a in argv))
        obj = os.path.join(self.tmp, "vector_add.o")
        argv[argv.index("-o") + 1] = obj
        proc = subprocess.run(argv, cwd=e["directory"], capture_output=True, text=True, timeout=900)
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        self.assertTrue(os.path.getsize(obj) > 0)
        self.assertEqual(glob.glob(os.path.join(self.checkout.dir, "*.o")), [])


if __name__ == "__main__":
    checkout_lib.main()
