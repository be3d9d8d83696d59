"""End to end, with real nested Bazel builds of the examples:

1. Reproducibility: two checkouts at different absolute paths, each with its
   own output base, build the examples cold for 4 archs; every stage output
   (preprocessed files, PTX, cubins, fatbinaries, host objects) is
   byte-identical between them.
2. CI -> developer reuse: checkout 1 filled a --disk_cache with its 4-arch
   build; checkout 2 runs `bazel clean` and builds sm_90 only against that
   cache. Bazel's execution log shows every sm_90 CudaCicc and CudaPtxas of
   the plain-kernel examples as a cache hit. The CUB example is recorded (CUB
   puts the arch list into its ABI namespace, so it misses).
3. The stage actions ran sandboxed (linux-sandbox where available), so their
   declared inputs are complete.
"""

import os
import shutil
import subprocess
import sys
import unittest

from tests.e2e.checkout_lib import TOOLKIT, Checkout
from tools.cache_report import cache_report_lib

CI_ARCHS = "sm_75,sm_80,sm_86,sm_90,compute_90"
TARGETS = ["@rules_cuda_stages_examples//..."]
PLAIN = ("//vector_add:", "//templated:")  # plain-kernel example packages


# The newest gcc major each toolkit accepts (crt/host_config.h).
MAX_GCC = {"13.0": 15}


def _too_new_gcc():
    """A gcc newer than the toolkit supports, if this machine has one."""
    if TOOLKIT not in MAX_GCC:
        return None
    for name in ("gcc-16", "gcc-17", "gcc"):
        path = shutil.which(name)
        if not path:
            continue
        version = subprocess.run([path, "-dumpversion"], capture_output=True, text=True).stdout.strip()
        if version.split(".")[0].isdigit() and int(version.split(".")[0]) > MAX_GCC[TOOLKIT]:
            return path
    return None


def _tampered_build(checkout):
    """Breaks the pinned sha256 of one 13.5 wheel in the checkout's table; returns the build args."""
    table = os.path.join(checkout.dir, "cuda_rules", "private", "repo", "cuda_versions.bzl")
    with open(table) as f:
        text = f.read()
    marker = '"filename": "nvidia_cuda_nvcc-13.5.'
    start = text.index(marker, text.index('"x86_64"', text.index('"13.5"')))
    sha = text.index('"sha256": "', start) + len('"sha256": "')
    text = text[:sha] + "0" * 64 + text[sha + 64:]
    with open(table, "w") as f:
        f.write(text)
    return ("build", "--//cuda_rules:toolkit=13.5", "//tests/e2e/broken:ok")


class ReuseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        cls.disk_cache = os.path.join(tmp, "disk_cache")
        cls.one = Checkout(tmp, "ci")
        cls.two = Checkout(tmp, "developer-checkout-at-a-longer-path")
        cls.ci_log = os.path.join(tmp, "ci.json")
        cls.cold_log = os.path.join(tmp, "cold2.json")
        # The developer build writes Bazel's binary log (the CI builds JSON
        # ones), so both formats of real logs are read.
        cls.dev_log = os.path.join(tmp, "dev.binlog")
        try:
            cls.one.bazel("build", "--//cuda_rules:archs=" + CI_ARCHS, "--disk_cache=" + cls.disk_cache,
                          "--execution_log_json_file=" + cls.ci_log, *TARGETS)
            # Its own, empty disk cache: a cold build, whose log also records
            # each action's key (digest).
            cls.two.bazel("build", "--//cuda_rules:archs=" + CI_ARCHS,
                          "--disk_cache=" + os.path.join(tmp, "disk_cache_two"),
                          "--execution_log_json_file=" + cls.cold_log, *TARGETS)
            cls.one_outputs = cls.one.cuda_outputs()
            cls.two_outputs = cls.two.cuda_outputs()
            cls.two.bazel("clean")
            cls.two.bazel("build", "--//cuda_rules:archs=sm_90", "--disk_cache=" + cls.disk_cache,
                          "--execution_log_binary_file=" + cls.dev_log, *TARGETS)
            if TOOLKIT == "13.0":
                # The same CI -> developer scenario with an ABI arch list that
                # CI and developers share (--//cuda_rules:abi_archs).
                cls.abi_ci_log = os.path.join(tmp, "abi_ci.json")
                cls.abi_dev_log = os.path.join(tmp, "abi_dev.binlog")
                abi = "--//cuda_rules:abi_archs=" + CI_ARCHS
                # CI's list is the ABI list, so CI's commands are the same as in
                # the main scenario: its cache (and its action cache) serve.
                abi_cache = "--disk_cache=" + cls.disk_cache
                cls.one.bazel("build", abi, abi_cache, "--//cuda_rules:archs=" + CI_ARCHS,
                              "--execution_log_json_file=" + cls.abi_ci_log, *TARGETS)
                cls.two.bazel("clean")
                cls.two.bazel("build", abi, abi_cache, "--//cuda_rules:archs=sm_90",
                              "--execution_log_binary_file=" + cls.abi_dev_log, *TARGETS)
            cls.device_error = cls.two.bazel_fails("build", "//tests/e2e/broken:device_error")
            cls.routing_log = os.path.join(tmp, "routing.binlog")
            cls.two.bazel("build", "--execution_log_binary_file=" + cls.routing_log, "//tests/e2e/routing:routed")
            cls.too_new_gcc = _too_new_gcc()
            if TOOLKIT == "13.0":
                cls.tampered_error = cls.two.bazel_fails(*_tampered_build(cls.two))
            if cls.too_new_gcc:
                cls.host_compiler_error = cls.two.bazel_fails(
                    "build", "--repo_env=CC=" + cls.too_new_gcc, "//tests/e2e/broken:ok")
        finally:
            for checkout in (cls.one, cls.two):
                try:
                    checkout.bazel("shutdown")
                except AssertionError:
                    pass

    def test_two_checkouts_build_byte_identical_stage_outputs(self):
        self.assertGreater(len(self.one_outputs), 60)
        self.assertEqual(sorted(self.one_outputs), sorted(self.two_outputs))
        different = [p for p in self.one_outputs if self.one_outputs[p] != self.two_outputs[p]]
        self.assertEqual(different, [], "outputs that differ between checkouts")
        kinds = {os.path.splitext(p)[1] for p in self.one_outputs}
        self.assertTrue({".ptx", ".cubin", ".fatbin", ".o", ".ii"} <= kinds, kinds)

    def test_two_checkouts_have_identical_device_stage_keys(self):
        # The action keys (digests) of CudaCicc and CudaPtxas do not depend on
        # where the checkout, the output base or the toolkit's files are.
        def keys(log):
            return sorted((s.mnemonic, s.arch, s.outputs[0], s.digest)
                          for s in cache_report_lib.read_log(log)
                          if s.mnemonic in ("CudaCicc", "CudaPtxas"))
        one, two = keys(self.ci_log), keys(self.cold_log)
        self.assertEqual(len(one), 24)  # 3 sources x (4 cicc + 4 ptxas)
        self.assertTrue(all(k[3] for k in one), "spawns without a digest")
        self.assertEqual(one, two)

    def test_developer_sm90_build_reuses_ci_device_code(self):
        spawns = cache_report_lib.read_log(self.dev_log)
        device = [s for s in spawns if s.mnemonic in ("CudaCicc", "CudaPtxas")]
        self.assertTrue(device)
        self.assertEqual({s.arch for s in device}, {"compute_90", "sm_90"})
        plain = [s for s in device if s.target.endswith(PLAIN) or any(p in s.target for p in PLAIN)]
        self.assertEqual(len(plain), 4, [(s.target, s.mnemonic) for s in device])  # 2 sources x (cicc + ptxas)
        misses = [(s.target, s.mnemonic, s.arch) for s in plain if not s.cache_hit]
        self.assertEqual(misses, [], "plain-kernel sm_90 stages that were not cache hits")
        print("\nCUDA %s: developer build, sm_90 after CI's %s build:" % (TOOLKIT, CI_ARCHS))
        sys.stdout.write(cache_report_lib.format_rows(
            cache_report_lib.summarize(spawns, cache_report_lib.read_log(self.ci_log)), "table"))
        for s in device:
            if s not in plain:
                print("CCCL source %s %s %s: %s" % (s.target, s.mnemonic, s.arch, "hit" if s.cache_hit else "miss (ABI namespace holds the arch list)"))

    def test_device_compile_error_names_source_line_and_stage(self):
        err = self.device_error
        self.assertIn("tests/e2e/broken/device_error.cu(5)", err)  # cicc's file(line) form
        self.assertIn("host_only", err)
        self.assertIn("CudaCicc", err)
        self.assertIn("//tests/e2e/broken:device_error", err)

    def test_unsupported_host_compiler_gets_one_clear_message(self):
        if not self.too_new_gcc:
            self.skipTest("no gcc newer than CUDA %s supports on this machine (or no known limit)" % TOOLKIT)
        err = self.host_compiler_error
        self.assertIn("unsupported GNU version", err)  # nvcc's own #error, kept
        self.assertIn("the host compiler is newer than this CUDA version supports", err)
        self.assertIn("--repo_env=CC=", err)

    def test_checksum_mismatch_is_one_clear_error(self):
        if TOOLKIT != "13.0":
            self.skipTest("checked once, in the CUDA 13.0 run")
        err = self.tampered_error
        self.assertIn("rules_cuda_stages: CUDA 13.5: could not fetch nvidia_cuda_nvcc-13.5.", err)
        self.assertIn("sha256 " + "0" * 64, err)
        self.assertIn("tools/cuda_wheels/lock.py 13.5", err)

    def test_binary_log_is_read(self):
        # Bazel's own binary log, parsed with execlog.proto's generated code.
        with open(self.dev_log, "rb") as f:
            self.assertNotEqual(f.read(1), b"{")
        spawns = cache_report_lib.read_log(self.dev_log)
        cicc = [s for s in spawns if s.mnemonic == "CudaCicc"]
        self.assertEqual(len(cicc), 3)
        self.assertTrue(all(s.digest and s.inputs and s.outputs and s.target for s in cicc))

    def test_abi_arch_list_makes_cccl_code_reusable(self):
        if TOOLKIT != "13.0":
            self.skipTest("checked once, in the CUDA 13.0 run")
        cub = "//cub_reduce:sum"
        stages = ("CudaHostPreprocess", "CudaFrontend", "CudaDevicePreprocess", "CudaCicc", "CudaPtxas")
        # Without the setting (the main scenario) CUB's sm_90 device code misses...
        before = [s for s in cache_report_lib.read_log(self.dev_log) if cub in s.target and s.mnemonic in ("CudaCicc", "CudaPtxas")]
        self.assertEqual(len(before), 2)
        self.assertFalse(any(s.cache_hit for s in before))
        # ...with one ABI list shared by CI and the developer, every sm_90 stage and the frontend hit.
        spawns = cache_report_lib.read_log(self.abi_dev_log)
        after = [s for s in spawns if cub in s.target and s.mnemonic in stages]
        self.assertEqual(sorted(s.mnemonic for s in after), sorted(stages))
        self.assertEqual([(s.mnemonic, s.arch) for s in after if not s.cache_hit], [])
        device = [s for s in spawns if s.mnemonic in ("CudaDevicePreprocess", "CudaCicc", "CudaPtxas")]
        self.assertEqual([(s.target, s.mnemonic) for s in device if not s.cache_hit], [])
        # Saved time from CI's first build (where those actions executed).
        rows = cache_report_lib.summarize(spawns, cache_report_lib.read_log(self.ci_log))
        print("\nwith --//cuda_rules:abi_archs=%s, developer build for sm_90:" % CI_ARCHS)
        sys.stdout.write(cache_report_lib.format_rows(rows, "table"))
        fraction = cache_report_lib.device_fraction_from_cache(rows)
        print("device-stage time served from CI's cache: %.1f %%" % (100 * fraction))
        self.assertEqual(fraction, 1.0)

    def test_per_stage_routing_through_exec_groups(self):
        # exec_properties = {"cicc.Pool": ..., "ptxas.Pool": ...} reach only those stages' spawns.
        pools = {s.mnemonic: s.platform.get("Pool") for s in cache_report_lib.read_log(self.routing_log)
                 if s.mnemonic.startswith("Cuda")}
        self.assertEqual(pools.pop("CudaCicc"), "cicc-workers")
        self.assertEqual(pools.pop("CudaPtxas"), "large-memory")
        self.assertEqual(set(pools.values()), {None}, pools)

    def test_stage_actions_ran_sandboxed(self):
        spawns = cache_report_lib.read_log(self.cold_log)
        runners = {s.runner for s in spawns if s.mnemonic.startswith("Cuda") and not s.cache_hit}
        self.assertTrue(runners)
        self.assertTrue(all("sandbox" in r for r in runners), runners)


if __name__ == "__main__":
    unittest.main()
