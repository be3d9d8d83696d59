"""Remote cache and remote execution against a real REAPI server.

Bazel's own RemoteWorker (tests/remote/reapi.py) serves CAS, action cache and
execution on 127.0.0.1, and BuildGrid (from PyPI) a cache. Every scenario
reads Bazel's execution log:

1. CI -> developer through --remote_cache: checkout 1 builds the plain-kernel
   examples (vector_add, templated) for 4 archs; checkout 2 (another path, its
   own output base) builds sm_90 only: every sm_90 CudaCicc and CudaPtxas is a
   remote cache hit. (CUB's example, ~85 % of the examples' compile time, is
   built only where a long build is the point: scenario 3a.)
2. Remote execution with --remote_download_minimal: every CUDA stage action
   runs on the executor (runner "remote") but the plans (a worker on Bazel's
   machine: --config=rbe's --strategy=CudaPlan=worker), none locally; the binary fetched
   afterwards equals a local build's byte for byte.
3. Faults: the server is stopped in the middle of a build with
   --remote_cache and --remote_local_fallback (once cicc or ptxas runs), and
   started again on the same port a second later: the build still succeeds,
   its device code equals a local build's, it uploads to the restarted
   server, and a clean build served by that server gets the same cubin. A CAS blob (a cubin) is corrupted on the
   server's disk: the next build never produces a wrong cubin.
4. Scenario 1 again with BuildGrid as the remote cache.
"""

import hashlib
import os
import sys
import time
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout
from tests.remote import reapi
from tools.cache_report import cache_report_lib
from tools.nvcc_plan import stages as nvcc_stages

CI_ARCHS = "sm_75,sm_80,sm_86,sm_90,compute_90"
PLAIN = ("//vector_add:", "//templated:")
# Their CUDA sources: vector_add.cu, the demo's vector_add_demo.cc (a cuda_binary
# source, CUDA like every .cc there) and templated's scale.cu; one cicc and one
# ptxas each for a one-arch developer build.
PLAIN_SOURCES = 3
PLAIN_TARGETS = ["@rules_cuda_stages_examples%s..." % p.replace(":", "/") for p in PLAIN]
EXAMPLES = "@rules_cuda_stages_examples//..."
DEMO = "@rules_cuda_stages_examples//vector_add:vector_add_demo"
DEMO_PATH = "vector_add/vector_add_demo"  # in the examples module (_examples)
# Relocatable device code with LTO: the device link (CudaDeviceLink per arch,
# CudaLinkStub) runs remotely too.
RDC = "//tests/rdc:lto_test"
RDC_PATH = "tests/rdc/lto_test"
CUBIN = "vector_add/_cuda/vector_add/vector_add/compute_{a}/sm_{a}/vector_add.cubin"  # in the examples module


def _examples(checkout, path):
    """`path` of the examples module under bazel-bin: external/<canonical repository name>/path.

    The canonical name ends in `~` on Bazel 7 and in `+` on Bazel 8 and later
    (--incompatible_use_plus_in_repo_names).
    """
    bin_dir = checkout.bazel("info", "bazel-bin").strip()
    for name in ("rules_cuda_stages_examples+", "rules_cuda_stages_examples~"):
        if os.path.exists(os.path.join(bin_dir, "external", name, path)):
            return os.path.join("external", name, path)
    raise AssertionError("no %s of rules_cuda_stages_examples under %s/external" % (path, bin_dir))


def _log(tmp, name):
    return os.path.join(tmp, name + ".binlog")


class RemoteTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        cls.tmp = tmp
        classes, classpath = reapi.build_remote_worker(os.path.join(tmp, "remote_worker"))
        cls.worker = reapi.RemoteWorker(os.path.join(tmp, "server")).start(classes, classpath)
        cls.ci = Checkout(tmp, "ci")
        cls.dev = Checkout(tmp, "developer-at-another-path")
        remote_cache = "--remote_cache=" + cls.worker.address
        try:
            # 1. CI -> developer through the remote cache (.bazelrc's --config=remote-cache).
            cls.ci.bazel("build", "--config=remote-cache", "--//cuda_rules:archs=" + CI_ARCHS, remote_cache,
                         "--execution_log_binary_file=" + _log(tmp, "ci"), *PLAIN_TARGETS)
            cls.dev.bazel("build", "--config=remote-cache", "--//cuda_rules:archs=sm_90", remote_cache,
                          "--execution_log_binary_file=" + _log(tmp, "dev"), *PLAIN_TARGETS)
            # 2. Remote execution of everything (.bazelrc's --config=rbe: --remote_download_minimal).
            cls.dev.bazel("clean")
            cls.dev.bazel("build", "--config=rbe", "--//cuda_rules:archs=sm_89", "--remote_executor=" + cls.worker.address,
                          "--noremote_accept_cached",
                          "--execution_log_binary_file=" + _log(tmp, "rbe"), DEMO, RDC)
            cls.dev.bazel("build", "--//cuda_rules:archs=sm_89", "--remote_executor=" + cls.worker.address,
                          "--remote_download_toplevel", DEMO, RDC)
            cls.remote_demo = cls.dev.file(_examples(cls.dev, DEMO_PATH))
            cls.remote_rdc = cls.dev.file(RDC_PATH)
            cls.ci.bazel("build", "--//cuda_rules:archs=sm_89", DEMO, RDC)  # local reference
            cls.local_demo = cls.ci.file(_examples(cls.ci, DEMO_PATH))
            cls.local_rdc = cls.ci.file(RDC_PATH)
            # 3a. The cache server goes away in the middle of a build.
            cls.dev.bazel("clean")
            build = cls.dev.start("build", "--//cuda_rules:archs=sm_87,sm_120", remote_cache, "--remote_download_all",
                                  "--remote_local_fallback", "--remote_retries=1", "--remote_timeout=10", EXAMPLES)
            # It stops once the build compiles device code (a cicc or ptxas of this output base runs) ...
            deadline = time.monotonic() + 300
            while (time.monotonic() < deadline and build.poll() is None
                   and not reapi.processes_in(cls.dev.output_base, ("cicc", "ptxas"))):
                time.sleep(0.05)
            cls.stopped_during_build = build.poll() is None
            cls.worker.stop()
            # ... and comes back on the same port while the build still runs.
            time.sleep(1)
            cls.restarted_during_build = build.poll() is None
            cls.worker.start(classes, classpath, port=cls.worker.port)
            cls.blobs_at_restart = len(cls.worker.blobs())
            cls.fallback_output = build.communicate(timeout=600)[0]
            cls.blobs_after_build = len(cls.worker.blobs())
            cls.fallback_status = build.returncode
            if cls.fallback_status == 0:
                cls.fallback_cubin = cls.dev.file(_examples(cls.dev, CUBIN.format(a="87")))
            else:
                cls.fallback_cubin = None
            cls.ci.bazel("build", "--//cuda_rules:archs=sm_87,sm_120", EXAMPLES)
            cls.reference_cubin_87 = cls.ci.file(_examples(cls.ci, CUBIN.format(a="87")))
            cls.reference_outputs = cls.ci.cuda_outputs()
            # Nothing wrong was stored around the outage: a clean build served by the restarted server.
            cls.dev.bazel("clean")
            cls.dev.bazel("build", "--//cuda_rules:archs=sm_87,sm_120", remote_cache, "--remote_download_all",
                          "--execution_log_binary_file=" + _log(tmp, "after_restart"), EXAMPLES)
            cls.after_restart_outputs = cls.dev.cuda_outputs()
            # 3b. A corrupted blob on the server's disk (the server restarted in 3a).
            cls.ci.bazel("clean")
            cls.ci.bazel("build", "--//cuda_rules:archs=sm_80", remote_cache, "--remote_download_all", DEMO)
            good = cls.ci.file(_examples(cls.ci, CUBIN.format(a="80")))
            digest = hashlib.sha256(good).hexdigest()
            blobs = [b for b in cls.worker.blobs() if os.path.basename(b) == digest]
            cls.corrupted = len(blobs)
            for blob in blobs:
                with open(blob, "r+b") as f:
                    f.seek(len(good) // 2)
                    f.write(b"\xde\xad\xbe\xef")
            cls.dev.bazel("clean")
            try:
                cls.dev.bazel("build", "--//cuda_rules:archs=sm_80", remote_cache, "--remote_download_all",
                              "--remote_local_fallback", DEMO)
                cls.after_corruption = cls.dev.file(_examples(cls.dev, CUBIN.format(a="80")))
                cls.corruption_error = None
            except AssertionError as e:
                cls.after_corruption = None
                cls.corruption_error = str(e)
            cls.good_cubin_80 = good
            cls.worker.stop()
            # 4. The same CI -> developer reuse through BuildGrid, another REAPI server.
            bgd = reapi.install_buildgrid(os.path.join(tmp, "buildgrid-venv"))
            cls.buildgrid = reapi.BuildGridCache(os.path.join(tmp, "buildgrid"), bgd).start()
            bg_cache = "--remote_cache=" + cls.buildgrid.address
            cls.ci.bazel("build", "--//cuda_rules:archs=sm_100,sm_90", bg_cache, *PLAIN_TARGETS)
            cls.dev.bazel("clean")
            cls.dev.bazel("build", "--//cuda_rules:archs=sm_100", bg_cache,
                          "--execution_log_binary_file=" + _log(tmp, "dev_buildgrid"), *PLAIN_TARGETS)
        finally:
            cls.worker.stop()
            if getattr(cls, "buildgrid", None):
                cls.buildgrid.stop()
            checkout_lib.shut_down(cls.ci, cls.dev)

    def test_ci_to_developer_through_the_remote_cache(self):
        spawns = cache_report_lib.read_log(_log(self.tmp, "dev"))
        plain = [s for s in spawns if s.mnemonic in ("CudaCicc", "CudaPtxas") and any(p in s.target for p in PLAIN)]
        self.assertEqual(len(plain), 2 * PLAIN_SOURCES, [(s.target, s.mnemonic) for s in plain])
        self.assertEqual([(s.target, s.mnemonic) for s in plain if s.runner != "remote cache hit"], [])
        print("\ndeveloper build (sm_90) against the remote cache CI filled:")
        sys.stdout.write(cache_report_lib.format_rows(
            cache_report_lib.summarize(spawns, cache_report_lib.read_log(_log(self.tmp, "ci"))), "table"))

    def test_ci_to_developer_through_buildgrid(self):
        spawns = cache_report_lib.read_log(_log(self.tmp, "dev_buildgrid"))
        plain = [s for s in spawns if s.mnemonic in ("CudaCicc", "CudaPtxas") and any(p in s.target for p in PLAIN)]
        self.assertEqual({s.arch for s in plain}, {"compute_100", "sm_100"})
        self.assertEqual(len(plain), 2 * PLAIN_SOURCES, [(s.target, s.mnemonic) for s in plain])
        self.assertEqual([(s.target, s.mnemonic) for s in plain if s.runner != "remote cache hit"], [])

    def test_every_stage_ran_on_the_executor(self):
        spawns = cache_report_lib.read_log(_log(self.tmp, "rbe"))
        stages = [s for s in spawns if s.mnemonic.startswith("Cuda")]
        # Every mnemonic of an nvcc build with device links (the plan, nvcc's compile
        # table and the link table), none unstaged and none of clang's table.
        nvcc_build = {nvcc_stages.PLAN_MNEMONIC} | {s.mnemonic for s in nvcc_stages.COMPILE_STAGES + nvcc_stages.LINK_STAGES}
        self.assertEqual({s.mnemonic for s in stages}, nvcc_build)
        # .bazelrc's --config=rbe plans on Bazel's machine (--strategy=CudaPlan=worker): the
        # plan's outputs reach the executor as inputs of the stages, which all run there.
        self.assertEqual({s.runner for s in stages if s.mnemonic != nvcc_stages.PLAN_MNEMONIC}, {"remote"})
        self.assertEqual({s.runner for s in stages if s.mnemonic == nvcc_stages.PLAN_MNEMONIC}, {"worker"})
        self.assertEqual([s.mnemonic for s in spawns if s.runner != "remote" and s.mnemonic != nvcc_stages.PLAN_MNEMONIC],
                         [])

    def test_remotely_built_binary_equals_the_local_one(self):
        self.assertGreater(len(self.local_demo), 100000)
        self.assertEqual(hashlib.sha256(self.remote_demo).hexdigest(), hashlib.sha256(self.local_demo).hexdigest())
        self.assertGreater(len(self.local_rdc), 100000)
        self.assertEqual(hashlib.sha256(self.remote_rdc).hexdigest(), hashlib.sha256(self.local_rdc).hexdigest())

    def test_build_survives_the_cache_server_stopping(self):
        self.assertTrue(self.stopped_during_build, "the build ended before the server was stopped")
        self.assertEqual(self.fallback_status, 0, self.fallback_output[-3000:])
        print("\nbuild with the cache server stopped while cicc ran: %s" % " | ".join(
            line for line in self.fallback_output.splitlines() if "WARNING" in line and "emote" in line)[:600])
        self.assertEqual(self.fallback_cubin, self.reference_cubin_87)

    def test_build_survives_the_cache_server_restarting(self):
        self.assertTrue(self.restarted_during_build, "the build ended before the server came back")
        self.assertEqual(self.fallback_status, 0, self.fallback_output[-3000:])
        # The rest of the build uploaded its results to the restarted server.
        self.assertGreater(self.blobs_after_build, self.blobs_at_restart)
        # A clean build from it is served (at least what ran after the restart,
        # the last stages of the build) and equals a local build byte for byte.
        spawns = cache_report_lib.read_log(_log(self.tmp, "after_restart"))
        hits = [s for s in spawns if s.mnemonic.startswith("Cuda") and s.runner == "remote cache hit"]
        self.assertTrue(hits, "the clean build after the outage got nothing from the restarted server")
        cubin = [p for p in self.after_restart_outputs if p.endswith("sm_87/vector_add.cubin")]
        self.assertEqual(len(cubin), 1, sorted(self.after_restart_outputs)[:20])
        self.assertEqual([p for p in self.after_restart_outputs
                          if self.reference_outputs.get(p) != self.after_restart_outputs[p]], [])

    def test_a_corrupted_blob_never_yields_a_wrong_cubin(self):
        self.assertGreater(self.corrupted, 0, "the cubin's blob was not found in the server's CAS")
        print("\nafter corrupting the cubin's blob: %s" % (
            "the build failed: " + self.corruption_error[-400:] if self.after_corruption is None
            else "the build succeeded with the correct cubin"))
        if self.after_corruption is None:
            self.assertIn("digest", self.corruption_error.lower())
        else:
            self.assertEqual(self.after_corruption, self.good_cubin_80)


if __name__ == "__main__":
    checkout_lib.main()
