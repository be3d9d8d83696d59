"""End to end, with real nested Bazel builds: clang as the CUDA compiler, in stages (issue 33).

Every build: --@rules_cuda_stages//cuda_rules:compiler=clang with tools/bazelw's
clang 21 as the C++ toolchain (--//tests/host_clang:clang) and CUDA 12.4, or
(clang22_test: $CLANG_FLAG, $CUDA_TOOLKIT) its clang 22
(--//tests/clang:clang22) and CUDA 13.0.

1. Reproducibility: two checkouts at different absolute paths, each with its
   own output base, build //tests/clang:reuse_kernel for CI's archs
   (sm_80,sm_90,compute_90); every stage output (PTX, cubins, fatbinary,
   object, scripts) is byte-identical between them.
2. CI -> developer reuse: the developer's checkout runs `bazel clean` and
   builds sm_90 only against CI's --disk_cache: its CudaClangDevice and
   CudaPtxas for sm_90 and its CudaClangHost are cache hits (clang 21 defines
   no __CUDA_ARCH_LIST__, clang 22's is the shipped set's in both builds,
   -cuid is the rules' module id, and the host compile embeds an empty
   fatbinary: no stage depends on the other archs). Only its
   fatbinary and CudaClangEmbed run: they hold another arch set.
3. A host-only edit (an exported host function added above the kernel,
   shifting every line) re-runs each CudaClangDevice (clang parses the whole source for the
   device), CudaClangHost and CudaClangEmbed, and no CudaPtxas: the PTX is
   byte-identical, so every ptxas is a cache hit.
4. Relocatable device code (//tests/clang:reuse_rdc, two sources, rdc = True,
   built beside it in every build): reproducible the same way, and the
   developer's sm_90 build gets every device stage of both sources, their
   host compiles and the sm_90 device link (CudaDeviceLink) from CI's cache.
"""

import os
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout
from tools.cache_report import cache_report_lib
from tools.nvcc_plan import stages

TARGET = "//tests/clang:reuse_kernel"
RDC_TARGET = "//tests/clang:reuse_rdc"
SOURCE = "tests/fidelity/srcs/plain_kernel.cu"  # its source; the test edits it in a checkout
CI_ARCHS = "sm_80,sm_90,compute_90"
# The device link of reuse_rdc is in its output group device_link (a binary would link it).
CLANG = ["--//cuda_rules:compiler=clang", os.environ.get("CLANG_FLAG", "--//tests/host_clang:clang"), "--output_groups=+device_link"]
DEVICE = stages.CLANG_DEVICE.mnemonic
PTXAS = stages.PTXAS.mnemonic
HOST = stages.CLANG_HOST_COMPILE.mnemonic
EMBED = stages.CLANG_EMBED.mnemonic
FATBINARY = stages.CLANG_FATBINARY.mnemonic
DEVICE_LINK = stages.DEVICE_LINK.mnemonic


def _spawns(log, target="reuse_kernel"):
    """The log's CUDA stages of one target (by its output directory: _cuda/<target>/, _cuda_dlink/<target>/)."""
    return [
        s
        for s in cache_report_lib.read_log(log)
        if s.mnemonic.startswith("Cuda") and s.outputs and "/%s/" % target in s.outputs[0]
    ]


def _arch(spawn):
    return stages.arch_of_output(spawn.mnemonic, spawn.outputs[0])


class ClangTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        cache = os.path.join(tmp, "disk_cache")
        cls.one = Checkout(tmp, "ci")
        cls.two = Checkout(tmp, "developer-checkout-at-a-longer-path")
        cls.dev_log = os.path.join(tmp, "developer.json")
        cls.edit_log = os.path.join(tmp, "edit.json")
        try:
            ci = CLANG + ["--//cuda_rules:archs=" + CI_ARCHS]
            cls.one.bazel("build", "--disk_cache=" + cache, *ci, TARGET, RDC_TARGET)
            cls.two.bazel("build", "--disk_cache=" + os.path.join(tmp, "disk_cache_two"), *ci, TARGET, RDC_TARGET)
            cls.one_outputs = cls.one.cuda_outputs()
            cls.two_outputs = cls.two.cuda_outputs()

            cls.two.bazel("clean")
            cls.two.bazel("build", "--disk_cache=" + cache, "--execution_log_json_file=" + cls.dev_log,
                          *CLANG, "--//cuda_rules:archs=sm_90", TARGET, RDC_TARGET)

            path = os.path.join(cls.one.dir, SOURCE)
            with open(path) as f:
                text = f.read()
            marker = "__global__ void saxpy_kernel"
            with open(path, "w") as f:
                f.write(text.replace(marker, 'extern "C" int reuse_host_only_helper() { return 42; }\n\n' + marker, 1))
            cls.one.bazel("clean")
            cls.one.bazel("build", "--disk_cache=" + cache, "--execution_log_json_file=" + cls.edit_log, *ci, TARGET)
        finally:
            checkout_lib.shut_down(cls.one, cls.two)

    def test_two_checkouts_build_byte_identical_outputs(self):
        self.assertEqual(sorted(self.one_outputs), sorted(self.two_outputs))
        kinds = {os.path.splitext(p)[1] for p in self.one_outputs}
        self.assertTrue({".ptx", ".cubin", ".fatbin", ".o", ".sh"} <= kinds, kinds)
        self.assertTrue([p for p in self.one_outputs if "/_cuda_dlink/reuse_rdc/" in p], "no device link of reuse_rdc")
        different = [p for p in self.one_outputs if self.one_outputs[p] != self.two_outputs[p]]
        self.assertEqual(different, [], "outputs that differ between checkouts")

    def test_one_arch_build_reuses_ci_device_stages(self):
        spawns = _spawns(self.dev_log)
        device = [(s.mnemonic, _arch(s), s.cache_hit) for s in spawns if s.mnemonic in (DEVICE, PTXAS)]
        self.assertEqual(sorted((m, a) for m, a, _ in device), sorted([(PTXAS, "sm_90"), (DEVICE, "compute_90")]))
        self.assertTrue(all(hit for _, _, hit in device), device)
        self.assertEqual([s.cache_hit for s in spawns if s.mnemonic == HOST], [True], "the host compile reads no device code")
        self.assertEqual([s.cache_hit for s in spawns if s.mnemonic in (FATBINARY, EMBED)], [False, False])
        print("\ndeveloper's sm_90 build: " + ", ".join("%s %s %s" % (m, a, "hit" if h else "ran") for m, a, h in device))

    def test_one_arch_build_reuses_ci_relocatable_code_and_device_link(self):
        spawns = _spawns(self.dev_log, "reuse_rdc")
        reused = [(s.mnemonic, _arch(s), os.path.basename(s.outputs[0]), s.cache_hit) for s in spawns
                  if s.mnemonic in (DEVICE, PTXAS, HOST, DEVICE_LINK)]
        self.assertEqual(
            sorted((m, a) for m, a, _, _ in reused),
            sorted([(DEVICE, "compute_90"), (PTXAS, "sm_90"), (HOST, "-")] * 2 + [(DEVICE_LINK, "sm_90")]),
        )
        self.assertTrue(all(hit for _, _, _, hit in reused), reused)
        print("\ndeveloper's sm_90 build, rdc: " + ", ".join(
            "%s %s %s %s" % (m, a, name, "hit" if h else "ran") for m, a, name, h in reused))

    def test_host_only_edit_runs_no_ptxas(self):
        spawns = _spawns(self.edit_log)
        ptxas = [(_arch(s), s.cache_hit) for s in spawns if s.mnemonic == PTXAS]
        self.assertEqual(sorted(a for a, _ in ptxas), ["sm_80", "sm_90"])
        self.assertTrue(all(hit for _, hit in ptxas), "a host-only edit re-ran ptxas: %s" % ptxas)
        device = [(_arch(s), s.cache_hit) for s in spawns if s.mnemonic == DEVICE]
        self.assertEqual(sorted(a for a, _ in device), ["compute_80", "compute_90"])
        self.assertFalse(any(hit for _, hit in device), "the edited source's device compiles must run: %s" % device)
        self.assertEqual([s.cache_hit for s in spawns if s.mnemonic == HOST], [False])
        self.assertEqual([s.cache_hit for s in spawns if s.mnemonic == EMBED], [False])
        print("\nafter a host-only edit: " + ", ".join(
            "%s %s %s" % (s.mnemonic, _arch(s), "hit" if s.cache_hit else "ran") for s in spawns))


if __name__ == "__main__":
    checkout_lib.main()
