"""The host compiler in every key (issue 44), end to end with real nested Bazel builds.

Two machines: checkouts at two paths with their own output bases, whose C++
compilers sit at ONE path, $TEST_TMPDIR/machine/bin/gcc, a wrapper that runs
the machine's gcc (tools/bazelw's gcc 12) on machine A and another compiler (a
gcc 10 with its own C library: the hermetic toolchain's, called as a plain
compiler) on machine B. Both build the CUB and vector_add examples for sm_90.

1. With the C++ toolchain Bazel autodetects (--repo_env=CC=that path): the two
   compilers write different preprocessed files and host objects, and every
   stage whose output differs has a different key on each machine, so nothing
   one wrote is served to the other. (Here Bazel's autoconfiguration keeps them
   apart: its include-directory list, an input of every host-compiler stage,
   names gcc's major version and paths. Two compilers with the same include
   paths, e.g. 13.2 and 13.3, share keys; docs/toolkits.md says so.)
2. With --//cuda_rules:host_toolchain=gcc10 on both machines, whatever their
   own compilers: every stage output is byte-identical, and machine B's build
   against machine A's disk cache takes every CUDA stage (device and host,
   the host objects included) from it, running none.
"""

import os
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout
from tools.cache_report import cache_report_lib

ARCHS = "--//cuda_rules:archs=sm_90"
TARGETS = [ARCHS, "@rules_cuda_stages_examples//cub_reduce:sum", "@rules_cuda_stages_examples//vector_add:vector_add"]
HERMETIC = "--//cuda_rules:host_toolchain=gcc10"
# The stages that run the host compiler, and those whose outputs it writes.
HOST_COMPILER_STAGES = ("CudaPreprocess", "CudaFrontend", "CudaHostCompile", "CudaEmbedFatbin")
MACHINE_GCC = "/opt/rules_cuda_stages/bin/gcc"


def _wrapper(path, compiler):
    with open(path + ".tmp", "w") as f:
        f.write('#!/bin/sh\nexec %s "$@"\n' % compiler)
    os.chmod(path + ".tmp", 0o755)
    os.replace(path + ".tmp", path)


def _keys(log):
    """{output path under bazel-bin: (mnemonic, action key)} of the CUDA stages a build ran or took from a cache."""
    return {s.outputs[0].split("/bin/", 1)[1]: (s.mnemonic, s.digest)
            for s in cache_report_lib.read_log(log) if s.mnemonic.startswith("Cuda") and "/bin/" in s.outputs[0]}


class HostToolchainTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        compiler_dir = os.path.join(tmp, "machine", "bin")
        os.makedirs(compiler_dir)
        cls.compiler = os.path.join(compiler_dir, "gcc")
        cc = "--repo_env=CC=" + cls.compiler
        cls.a = Checkout(tmp, "machine-a")
        cls.b = Checkout(tmp, "machine-b-at-a-longer-path")
        disk_cache = os.path.join(tmp, "disk_cache")
        cls.logs = {name: os.path.join(tmp, name + ".json") for name in ("a_auto", "b_auto", "a_hermetic", "b_hermetic")}
        try:
            if not os.path.exists(MACHINE_GCC):
                raise unittest.SkipTest("no %s: this test runs under tools/bazelw" % MACHINE_GCC)
            _wrapper(cls.compiler, MACHINE_GCC)
            # A disk cache of each machine's own: Bazel's log then records every action's key.
            cls.a.bazel("build", cc, "--disk_cache=" + os.path.join(tmp, "disk_cache_a"),
                        "--execution_log_json_file=" + cls.logs["a_auto"], *TARGETS)
            cls.a_auto = cls.a.cuda_outputs(ARCHS)
            cls.a.bazel("clean")
            cls.a.bazel("build", cc, HERMETIC, "--disk_cache=" + disk_cache, "--execution_log_json_file=" + cls.logs["a_hermetic"], *TARGETS)
            cls.a_hermetic = cls.a.cuda_outputs(ARCHS, HERMETIC)
            # Machine B's compiler: another gcc at the same path.
            gcc10 = os.path.join(cls.a.output_base, "external", [d for d in os.listdir(os.path.join(cls.a.output_base, "external"))
                                                                 if d.endswith("cuda_host_gcc10")][0], "bin", "gcc")
            _wrapper(cls.compiler, gcc10)
            cls.b.bazel("build", cc, "--disk_cache=" + os.path.join(tmp, "disk_cache_b"),
                        "--execution_log_json_file=" + cls.logs["b_auto"], *TARGETS)
            cls.b_auto = cls.b.cuda_outputs(ARCHS)
            cls.b.bazel("clean")
            # Every output fetched from the cache (not only the top-level ones), to compare them all.
            cls.b.bazel("build", cc, HERMETIC, "--disk_cache=" + disk_cache, "--remote_download_all",
                        "--execution_log_json_file=" + cls.logs["b_hermetic"], *TARGETS)
            cls.b_hermetic = cls.b.cuda_outputs(ARCHS, HERMETIC)
        finally:
            checkout_lib.shut_down(cls.a, cls.b)

    def test_the_two_machines_compilers_write_different_host_code(self):
        different = sorted(p for p in self.a_auto if p in self.b_auto and self.a_auto[p] != self.b_auto[p])
        self.assertTrue(any(p.endswith(".cpp4.ii") for p in different), different)
        self.assertTrue(any(p.endswith(".host.o") for p in different), different)

    def test_autodetected_toolchain_serves_no_output_of_another_compiler(self):
        a, b = _keys(self.logs["a_auto"]), _keys(self.logs["b_auto"])
        checked = 0
        for path, (mnemonic, key) in a.items():
            if path not in b or path not in self.a_auto:
                continue
            if self.a_auto[path] != self.b_auto.get(path):
                checked += 1
                self.assertNotEqual(key, b[path][1], "%s %s: one key, two outputs" % (mnemonic, path))
        self.assertGreater(checked, 0)

    def test_hermetic_toolchain_writes_the_same_bytes_on_both_machines(self):
        self.assertEqual(sorted(self.a_hermetic), sorted(self.b_hermetic))
        differ = sorted(p for p in self.a_hermetic if self.a_hermetic[p] != self.b_hermetic[p])
        self.assertEqual(differ, [])
        # ... and not the bytes of either machine's own compiler.
        self.assertNotEqual(self.a_hermetic, self.a_auto)

    def test_hermetic_toolchain_serves_every_stage_from_the_other_machines_cache(self):
        spawns = [s for s in cache_report_lib.read_log(self.logs["b_hermetic"]) if s.mnemonic.startswith("Cuda")]
        mnemonics = {s.mnemonic for s in spawns}
        for mnemonic in HOST_COMPILER_STAGES + ("CudaCicc", "CudaPtxas"):
            self.assertIn(mnemonic, mnemonics)
        missed = sorted((s.mnemonic, s.outputs[0]) for s in spawns if not s.cache_hit)
        self.assertEqual(missed, [])
        # Both machines ran the hermetic compiler: one key per stage output on both.
        a, b = _keys(self.logs["a_hermetic"]), _keys(self.logs["b_hermetic"])
        self.assertEqual({p: k for p, k in a.items() if p in b}, {p: k for p, k in b.items() if p in a})


if __name__ == "__main__":
    unittest.main()
