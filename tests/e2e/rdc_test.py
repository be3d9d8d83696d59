"""End to end, with real nested Bazel builds of //tests/rdc/... (relocatable device code):

1. Reproducibility: two checkouts at different paths build the rdc targets
   (separate compilation, dynamic parallelism, LTO and non-LTO device links);
   every stage output (relocatable cubins, LTO IR, linked cubins,
   registration lists, link stubs) is byte-identical.
2. Reuse: after an edit of one .cu of the 3-file rdc + LTO library, a build
   from the first build's disk cache (after `bazel clean`) re-runs only that
   file's stages and the device link (CudaDeviceLink per arch, its fatbinary
   and link stub); the other two files' LTO IR are cache hits.
3. LTO happened: the LTO device link's cubin differs from the non-LTO one of
   the same sources, and the device functions of the other files are gone
   from it (inlined), while the non-LTO cubin calls them.
4. Bad input: a __device__ function defined in two rdc libraries, and rdc code
   calling a device function of a library that is not rdc, each fail at the
   device link with nvlink's message naming the targets and sources, and a fix.
5. Links that cannot work name the source: a cc_binary over two rdc libraries
   that share rdc code (each device-links it) fails with "multiple definition
   of `rules_cuda_stages__device_linked_twice__<target>__<source>`" and builds
   through one cuda_device_link; relocatable objects that nothing device-links
   fail with "undefined reference to `rules_cuda_stages__no_device_link_for__...`".
"""

import os
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout
from tools.cache_report import cache_report_lib

TARGETS = ["//tests/rdc/..."]
LTO_EDITED = "tests/rdc/lto/square.cu"
DEVICE_LINK = ("CudaDeviceLink", "CudaLinkStub")


class RdcTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        cls.disk_cache = os.path.join(tmp, "disk_cache")
        cls.one = Checkout(tmp, "ci")
        cls.two = Checkout(tmp, "developer-checkout-at-a-longer-path")
        cls.edit_log = os.path.join(tmp, "edit.json")
        try:
            cls.one.bazel("build", "--disk_cache=" + cls.disk_cache, *TARGETS)
            cls.two.bazel("build", "--disk_cache=" + os.path.join(tmp, "disk_cache_two"), *TARGETS)
            cls.one_outputs = cls.one.cuda_outputs()
            cls.two_outputs = cls.two.cuda_outputs()
            cls.lto_cubin = cls.one.file("tests/rdc/_cuda_dlink/lto_dlink/sm_90/lto_dlink.cubin")
            cls.nolto_cubin = cls.one.file("tests/rdc/_cuda_dlink/nolto_dlink/sm_90/nolto_dlink.cubin")

            path = os.path.join(cls.one.dir, LTO_EDITED)
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text.replace("return x * x;", "return x * x + 0.5f;"))
            cls.one.bazel("clean")
            cls.one.bazel("build", "--disk_cache=" + cls.disk_cache, "--execution_log_json_file=" + cls.edit_log,
                          "//tests/rdc:lto_test")

            cls.duplicate_error = cls.two.bazel_fails("build", "//tests/e2e/broken:duplicate_device_symbol")
            cls.not_rdc_error = cls.two.bazel_fails("build", "//tests/e2e/broken:uses_not_rdc")
            cls.twice_error = cls.two.bazel_fails("build", "//tests/e2e/broken:shared_device_linked_twice")
            cls.two.bazel("build", "//tests/e2e/broken:shared_device_linked_once")
            cls.never_error = cls.two.bazel_fails("build", "//tests/e2e/broken:never_device_linked")
        finally:
            checkout_lib.shut_down(cls.one, cls.two)

    def test_two_checkouts_build_byte_identical_rdc_outputs(self):
        self.assertEqual(sorted(self.one_outputs), sorted(self.two_outputs))
        # staged = False compiles with one nvcc per file: its object embeds
        # nvcc's temporary file names and its module id depends on the
        # checkout's path (not reproducible, as documented), and so do the
        # device link's registration list and stub that name that id.
        different = [p for p in self.one_outputs if self.one_outputs[p] != self.two_outputs[p] and "unstaged" not in p]
        self.assertEqual(different, [], "outputs that differ between checkouts")
        dlink = [p for p in self.one_outputs if "/_cuda_dlink/" in p]
        kinds = {os.path.splitext(p)[1] for p in dlink}
        self.assertTrue({".cubin", ".c", ".fatbin", ".o"} <= kinds, kinds)
        self.assertTrue(any(p.endswith(".ltoir") for p in self.one_outputs))

    def test_edit_of_one_lto_source_reruns_only_its_stages_and_the_device_link(self):
        spawns = [s for s in cache_report_lib.read_log(self.edit_log) if s.mnemonic.startswith("Cuda")]
        stem = "/lto/square/"
        misses = [(s.mnemonic, s.outputs[0]) for s in spawns if not s.cache_hit]
        # Misses: the edited file's stages (not its plan: its nvcc command is
        # the same), and the device link.
        for mnemonic, output in misses:
            self.assertTrue(
                stem in output or "/_cuda_dlink/" in output,
                "%s %s re-ran, but it does not depend on the edited file" % (mnemonic, output),
            )
        dlinks = sorted(os.path.basename(os.path.dirname(o)) for m, o in misses if m == "CudaDeviceLink")
        self.assertEqual(dlinks, ["sm_80", "sm_90"])
        self.assertIn("CudaLinkStub", [m for m, _ in misses])
        self.assertIn("CudaCicc", [m for m, o in misses if stem in o])
        # The other files' LTO IR (and all their stages) came from the cache; so
        # did the test's own source (lto_main.cc, CUDA too: the cuda_test's .cc).
        ltoir = [(s.outputs[0], s.cache_hit) for s in spawns
                 if s.mnemonic == "CudaCicc" and stem not in s.outputs[0] and "/_cuda/lto_ops/" in s.outputs[0]]
        self.assertEqual(len(ltoir), 4, ltoir)  # affine.cu, kernel.cu x lto_80, lto_90
        self.assertTrue(all(hit for _, hit in ltoir), ltoir)
        others = [(s.outputs[0], s.cache_hit) for s in spawns if s.mnemonic == "CudaCicc" and stem not in s.outputs[0]]
        self.assertTrue(all(hit for _, hit in others), others)
        print("\nafter editing %s: %d Cuda* spawns, %d cache hits; re-ran:" % (LTO_EDITED, len(spawns), len(spawns) - len(misses)))
        for mnemonic, output in sorted(misses):
            print("  %-22s %s" % (mnemonic, output.split("/bin/", 1)[-1]))

    def test_lto_really_happened(self):
        self.assertNotEqual(self.lto_cubin, self.nolto_cubin)
        for name in (b"_Z10lto_squaref", b"_Z10lto_affinef"):
            self.assertIn(name, self.nolto_cubin, "the non-LTO link keeps %s as a function" % name)
            self.assertNotIn(name, self.lto_cubin, "LTO inlined %s into the kernel" % name)
        self.assertIn(b"lto_kernel", self.lto_cubin)

    def test_duplicate_device_symbol_names_both_targets(self):
        err = self.duplicate_error
        self.assertIn("Multiple definition of '_Z9dup_valuev'", err)
        self.assertIn("//tests/e2e/broken:dup_a (tests/e2e/broken/dup_a.cu)", err)
        self.assertIn("//tests/e2e/broken:dup_b (tests/e2e/broken/dup_b.cu)", err)
        self.assertIn("CudaDeviceLink sm_80", err)
        self.assertIn("Fix: define it in one .cu file", err)

    def test_device_code_of_a_non_rdc_library_is_named(self):
        err = self.not_rdc_error
        self.assertIn("Undefined reference to '_Z13not_rdc_twicef'", err)
        self.assertIn("not relocatable", err)
        self.assertIn("//tests/e2e/broken:not_rdc", err)
        self.assertIn("set rdc = True", err)


    def test_code_device_linked_twice_is_named(self):
        self.assertIn(
            "multiple definition of `rules_cuda_stages__device_linked_twice__tests_e2e_broken_shared_common__"
            "tests_e2e_broken_shared_common_cu'",
            self.twice_error,
        )

    def test_code_never_device_linked_is_named(self):
        self.assertIn(
            "undefined reference to `rules_cuda_stages__no_device_link_for__tests_e2e_broken_never_linked_objects__"
            "tests_e2e_broken_never_linked_cu'",
            self.never_error,
        )


if __name__ == "__main__":
    checkout_lib.main()
