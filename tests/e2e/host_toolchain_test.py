"""The host compiler in every key (issue 44), end to end with real nested Bazel builds.

Two machines: checkouts at two paths with their own output bases, whose C++
compilers sit at ONE path with the SAME include paths: tools/bazelw's
/opt/rules_cuda_stages/bin/gcc, which runs the gcc 12 of the toolchain root
/opt/rules_cuda_stages/bookworm. On machine A that root is Debian 12's
(gcc 12.2, glibc 2.36); on machine B, whose Bazel runs in a mount namespace,
Debian 13's is mounted there (gcc 12.4, glibc 2.41: tools/bazelw's
gcc12-trixie addon) -- the same compiler path and version line, different
compilers and system headers, as on two CI images a point release apart.
Both build the CUB, vector_add and driver API examples for sm_90.

1. With the C++ toolchain Bazel autodetects (--repo_env=CC=that path): the two
   compilers write different plans (nvcc passes the compiler's version to
   cudafe++ and cicc), preprocessed files and host objects. Neither the
   compiler nor its headers is an input of an action, and Bazel's
   autoconfiguration, whose include-directory list keeps compilers of two
   major versions apart, sees the same list; so the CUDA stages have the
   compiler's id (@cuda_host_compiler_id: version, predefined macros) as an
   input, and every stage output that differs has a different key. Bazel's
   own C++ rules do not: driver_api_demo's main.cc (a cc_binary) gets one
   key for two objects (the hole that remains).
2. With --//cuda_rules:host_toolchain=gcc10 on both machines, whatever their
   own compilers: every stage output is byte-identical, and machine B's build
   against machine A's disk cache takes every CUDA stage (device and host,
   the host objects included) from it, running none.
"""

import os
import subprocess
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout
from tools.cache_report import cache_report_lib

ARCHS = "--//cuda_rules:archs=sm_90"
TARGETS = [ARCHS, "@rules_cuda_stages_examples//cub_reduce:sum", "@rules_cuda_stages_examples//vector_add:vector_add",
           "@rules_cuda_stages_examples//driver_api:driver_api_demo"]
HERMETIC = "--//cuda_rules:host_toolchain=gcc10"
# The stages that run the host compiler, and those whose outputs it writes.
HOST_COMPILER_STAGES = ("CudaPreprocess", "CudaFrontend", "CudaHostCompile", "CudaEmbedFatbin")
MACHINE_GCC = "/opt/rules_cuda_stages/bin/gcc"
BOOKWORM = "/opt/rules_cuda_stages/bookworm"
TRIXIE = "/opt/rules_cuda_stages/trixie"
# Machine B's commands: its Bazel server (and so every action) sees the trixie root at the bookworm root's path.
ON_MACHINE_B = ["unshare", "--mount", "--propagation", "private", "--",
                "/bin/sh", "-c", 'mount --bind "$1" "$2" && shift 2 && exec "$@"', "sh", TRIXIE, BOOKWORM]


def _compiler(prefix):
    """(version, C++ include search list) of the machine compiler, run under prefix."""
    def run(*args, stdin=None):
        return subprocess.run(prefix + [MACHINE_GCC, *args], input=stdin, capture_output=True, text=True, check=True)
    listing = run("-xc++", "-E", "-v", "-", stdin="").stderr
    search = listing.split("#include <...> search starts here:", 1)[1].split("End of search list.", 1)[0]
    return run("-dumpfullversion").stdout.strip(), search.split()


def _colliding(log_a, log_b):
    """{mnemonic: [output]} of the actions whose key is the same in both logs and whose outputs are not."""
    b = {s.digest: s for s in cache_report_lib.read_log(log_b)}
    colliding = {}
    for s in cache_report_lib.read_log(log_a):
        other = b.get(s.digest)
        if other is not None and other.output_digests != s.output_digests:
            colliding.setdefault(s.mnemonic, []).append(s.outputs[0])
            print("one key (%s), two outputs: %s %s" % (s.digest[:12], s.mnemonic, s.outputs[0]))
    return colliding


def _keys(log):
    """{output path under bazel-bin: (mnemonic, action key)} of the CUDA stages a build ran or took from a cache."""
    return {s.outputs[0].split("/bin/", 1)[1]: (s.mnemonic, s.digest)
            for s in cache_report_lib.read_log(log) if s.mnemonic.startswith("Cuda") and "/bin/" in s.outputs[0]}


class HostToolchainTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        cc = "--repo_env=CC=" + MACHINE_GCC
        cls.a = Checkout(tmp, "machine-a")
        cls.b = Checkout(tmp, "machine-b-at-a-longer-path")
        cls.b.prefix = ON_MACHINE_B
        disk_cache = os.path.join(tmp, "disk_cache")
        cls.logs = {name: os.path.join(tmp, name + ".json") for name in ("a_auto", "b_auto", "a_hermetic", "b_hermetic")}
        try:
            if not os.path.exists(MACHINE_GCC):
                raise unittest.SkipTest("no %s: this test runs under tools/bazelw" % MACHINE_GCC)
            if not os.path.exists(os.path.join(TRIXIE, "usr/bin/gcc-12")):
                raise AssertionError("no %s: machine B's compiler is tools/bazelw's gcc12-trixie addon. "
                                     "Fix: tools/bazelw --bazelw-addon gcc12-trixie" % TRIXIE)
            cls.compilers = [_compiler(prefix) for prefix in ([], ON_MACHINE_B)]
            # A disk cache of each machine's own: Bazel's log then records every action's key.
            for c, name in ((cls.a, "a_auto"), (cls.b, "b_auto")):
                c.bazel("build", cc, "--disk_cache=" + os.path.join(tmp, "disk_cache_" + name),
                        "--execution_log_json_file=" + cls.logs[name], *TARGETS)
            cls.colliding = _colliding(cls.logs["a_auto"], cls.logs["b_auto"])
            cls.a_auto = cls.a.cuda_outputs(ARCHS)
            cls.b_auto = cls.b.cuda_outputs(ARCHS)
            for c in (cls.a, cls.b):
                c.bazel("clean")
            cls.a.bazel("build", cc, HERMETIC, "--disk_cache=" + disk_cache, "--execution_log_json_file=" + cls.logs["a_hermetic"], *TARGETS)
            cls.a_hermetic = cls.a.cuda_outputs(ARCHS, HERMETIC)
            # Every output fetched from the cache (not only the top-level ones), to compare them all.
            cls.b.bazel("build", cc, HERMETIC, "--disk_cache=" + disk_cache, "--remote_download_all",
                        "--execution_log_json_file=" + cls.logs["b_hermetic"], *TARGETS)
            cls.b_hermetic = cls.b.cuda_outputs(ARCHS, HERMETIC)
        finally:
            checkout_lib.shut_down(cls.a, cls.b)

    def test_two_compilers_at_one_path_with_one_include_list(self):
        (version_a, include_a), (version_b, include_b) = self.compilers
        self.assertEqual((version_a.split(".")[:2], version_b.split(".")[:2]), (["12", "2"], ["12", "4"]))
        self.assertEqual(include_a, include_b)
        self.assertTrue(all(d.startswith(BOOKWORM + "/") for d in include_a), include_a)

    def test_the_two_machines_compilers_write_different_host_code(self):
        different = sorted(p for p in self.a_auto if p in self.b_auto and self.a_auto[p] != self.b_auto[p])
        self.assertTrue(any(p.endswith(".cpp4.ii") for p in different), different)
        self.assertTrue(any(p.endswith(".host.o") for p in different), different)

    def test_autodetected_toolchain_keys_every_cuda_stage_by_its_compiler(self):
        """The machine's compiler's id (@cuda_host_compiler_id) is an input of every stage that runs it.

        Without it (before 2026-12-02) CudaPlan (nvcc tells cudafe++ and cicc the compiler's version) and
        CudaPreprocess had one key for two outputs here.
        """
        self.assertEqual([m for m in self.colliding if m.startswith("Cuda")], [])
        a, b = _keys(self.logs["a_auto"]), _keys(self.logs["b_auto"])
        checked = 0
        for path, (mnemonic, key) in a.items():
            if path in b and path in self.a_auto and self.a_auto[path] != self.b_auto.get(path):
                checked += 1
                self.assertNotEqual(key, b[path][1], "%s %s: one key, two outputs" % (mnemonic, path))
        self.assertGreater(checked, 0)

    def test_autodetected_toolchain_cc_rules_give_two_outputs_one_key(self):
        """The hole that remains with the machine's toolchain: Bazel's own C++ rules (driver_api_demo's main.cc)."""
        self.assertIn("CppCompile", self.colliding)

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
