"""Remote execution on a worker with no C++ compiler at all (issue 44), against a real REAPI server.

Bazel's RemoteWorker (tests/remote/reapi.py) executes on 127.0.0.1 inside a
mount namespace in which the machine's compilers are gone: the
autodetected toolchain's gcc (tools/bazelw's /opt/rules_cuda_stages), gcc's
back ends (/usr/lib/gcc) and clang's (/usr/lib/llvm-*). The test first checks
there that neither gcc, g++ nor clang can compile anything.

1. With --//cuda_rules:host_toolchain=gcc10 the example builds for sm_90 with
   every action on the worker but the plans, which .bazelrc's --config=rbe
   runs on Bazel's machine (--strategy=CudaPlan=worker): the hermetic compiler
   comes with each action. So does it in clang mode with the hermetic clang 22
   (host_toolchain=clang22, compiler=clang): clang's own loader and libraries
   come with it too.
2. Without it the build fails at the first stage the worker runs that needs
   the compiler (CudaPreprocess), with one line of the rules naming the
   missing program and the fix after the shell's own; with the plans on the
   worker too (--strategy=CudaPlan=remote) it fails at the plan (nvcc runs the
   compiler even for its plan), with the planner's line naming the compiler.
"""

import glob
import os
import subprocess
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout
from tests.remote import reapi
from tools.cache_report import cache_report_lib

TARGET = "@rules_cuda_stages_examples//vector_add:vector_add_demo"
HERMETIC = "--//cuda_rules:host_toolchain=gcc10"
HERMETIC_CLANG = ["--//cuda_rules:host_toolchain=clang22", "--//cuda_rules:compiler=clang"]
HINT = "the host compiler "

# Run as `sh -c HIDE sh EMPTY_DIR command...`: the command in a mount namespace of its own where each
# directory of the machine's compilers is an empty one.
HIDE = r"""
set -e
empty="$1"
shift
for d in /opt/rules_cuda_stages /usr/lib/gcc /usr/libexec/gcc /usr/lib/llvm-*; do
  if [ -d "$d" ]; then mount --bind "$empty" "$d"; fi
done
exec "$@"
"""


def _in_namespace(empty, *command):
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", HIDE, "sh", empty] + list(command)


class NoCompilerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        cls.tmp = tmp
        cls.empty = os.path.join(tmp, "empty")
        os.makedirs(cls.empty)
        probe = _in_namespace(cls.empty, "true")
        if subprocess.run(probe, capture_output=True).returncode != 0:
            raise AssertionError("cannot make a mount namespace here (%s): this test needs `unshare --mount`, "
                                 "as tools/bazelw's root gives it" % " ".join(probe[:4]))
        classes, classpath = reapi.build_remote_worker(os.path.join(tmp, "remote_worker"))
        cls.worker = reapi.RemoteWorker(os.path.join(tmp, "server"), prefix=_in_namespace(cls.empty)).start(classes, classpath)
        cls.checkout = Checkout(tmp, "client")
        cls.log = os.path.join(tmp, "hermetic.json")
        cls.clang_log = os.path.join(tmp, "hermetic_clang.json")
        rbe = ["--config=rbe", "--remote_executor=" + cls.worker.address, "--//cuda_rules:archs=sm_90"]
        try:
            cls.checkout.bazel("build", *rbe, HERMETIC, "--execution_log_json_file=" + cls.log, TARGET)
            cls.checkout.bazel("build", *rbe, *HERMETIC_CLANG, "--execution_log_json_file=" + cls.clang_log, TARGET)
            cls.checkout.bazel("clean")
            cls.code, _, cls.stderr = cls.checkout.bazel_result("build", *rbe, "--strategy=CudaPlan=remote", TARGET)
            cls.checkout.bazel("clean")
            cls.stage_code, _, cls.stage_stderr = cls.checkout.bazel_result("build", *rbe, TARGET)
        finally:
            checkout_lib.shut_down(cls.checkout)
            cls.worker.stop()

    def test_the_workers_namespace_has_no_compiler(self):
        source = os.path.join(self.tmp, "t.cc")
        with open(source, "w") as f:
            f.write("int main() { return 0; }\n")
        compilers = ["/opt/rules_cuda_stages/bin/gcc", "gcc", "g++", "cc", "c++"]
        compilers += sorted(os.path.basename(p) for p in glob.glob("/usr/bin/clang++-*") + glob.glob("/usr/bin/g++-*"))
        for compiler in compilers:
            proc = subprocess.run(_in_namespace(self.empty, "sh", "-c", '"$0" -c "$1" -o /dev/null', compiler, source),
                                  capture_output=True, text=True)
            self.assertNotEqual(proc.returncode, 0, "%s compiles in the worker's namespace" % compiler)

    def test_hermetic_toolchain_builds_every_stage_on_the_worker(self):
        spawns = [s for s in cache_report_lib.read_log(self.log) if s.mnemonic.startswith("Cuda")]
        mnemonics = {s.mnemonic for s in spawns}
        for mnemonic in ("CudaPreprocess", "CudaFrontend", "CudaCicc", "CudaPtxas", "CudaHostCompile", "CudaEmbedFatbin"):
            self.assertIn(mnemonic, mnemonics)
        # --config=rbe plans on Bazel's machine (a worker there); everything else runs on the executor.
        local = {(s.mnemonic, s.runner) for s in spawns if s.runner != "remote"}
        self.assertEqual(local, {("CudaPlan", "worker")})
        # The demo's link ran there too.
        self.assertIn("CppLink", {s.mnemonic for s in cache_report_lib.read_log(self.log) if s.runner == "remote"})

    def test_hermetic_clang_builds_every_stage_on_the_worker(self):
        spawns = cache_report_lib.read_log(self.clang_log)
        cuda = [s for s in spawns if s.mnemonic.startswith("Cuda")]
        for mnemonic in ("CudaClangDevice", "CudaPtxas", "CudaClangHost", "CudaClangEmbed"):
            self.assertIn(mnemonic, {s.mnemonic for s in cuda})
        self.assertEqual({(s.mnemonic, s.runner) for s in cuda if s.runner != "remote"}, {("CudaPlan", "worker")})
        self.assertIn("CppLink", {s.mnemonic for s in spawns if s.runner == "remote"})

    def test_without_it_the_first_stage_on_the_worker_fails_naming_the_fix(self):
        # The plan ran on Bazel's machine; the preprocess, on the worker, finds no compiler.
        self.assertNotEqual(self.stage_code, 0)
        self.assertIn("CudaPreprocess): a program this stage runs is not on the machine that ran it", self.stage_stderr)
        self.assertIn("/opt/rules_cuda_stages/bin/gcc", self.stage_stderr)
        self.assertIn(HERMETIC.replace("--//", "--@rules_cuda_stages//"), self.stage_stderr)

    def test_with_the_plan_on_the_worker_the_plan_fails_with_one_line_naming_the_fix(self):
        # nvcc runs the host compiler even for its plan: CudaPlan fails first, with nvcc's
        # lines and the planner's, which names the compiler and the flag.
        self.assertNotEqual(self.code, 0)
        self.assertIn("Planning nvcc stages of @@rules_cuda_stages_examples", self.stderr)
        self.assertIn("/opt/rules_cuda_stages/bin/gcc: No such file or directory", self.stderr)
        # One hint per failed plan (the executor may run both targets' plans before Bazel stops).
        failed = [line for line in self.stderr.splitlines()
                  if line.startswith("ERROR:") and "Planning nvcc stages of" in line and " failed: " in line]
        hints = [line for line in self.stderr.splitlines() if line.startswith(HINT)]
        self.assertGreaterEqual(len(failed), 1, self.stderr[-4000:])
        self.assertEqual(len(hints), len(failed), self.stderr[-4000:])
        for hint in hints:
            self.assertIn("the host compiler /opt/rules_cuda_stages/bin/gcc (the C++ toolchain's", hint)
            self.assertIn(HERMETIC.replace("--//", "--@rules_cuda_stages//"), hint)


if __name__ == "__main__":
    unittest.main()
