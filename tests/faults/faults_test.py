"""Cache faults lose no build and serve nothing wrong (nested Bazel builds of vector_add).

A reference checkout builds three arch sets with no cache at all; every other
build's outputs must be byte-identical to the reference's for the same set.
All three are subsets of the shipped set, so their stage keys are shared
(docs/cuda_library.md, "Archs"):

1. Eviction between two builds in one Bazel server. A build is served from a
   cache, so its stage outputs exist only there (Bazel 7 downloads top-level
   outputs only); the cache then loses them; the next build, for more archs,
   needs them:
   a. --disk_cache, its directory removed: with
      --experimental_remote_cache_eviction_retries=0 the build fails ("do not
      exist remotely"); with the .bazelrc's retries it retries and passes.
   b. A REAPI cache (Bazel's RemoteWorker, --config=remote-cache), every CAS
      blob deleted on the server's disk: the build retries and passes.
2. Two builds of different arch sets at once (two output bases) sharing one
   --disk_cache.
3. A build killed (SIGKILL to the Bazel server and the tool) while cicc or
   ptxas runs, then built again with the same disk cache.
4. A cubin's blob corrupted in the disk cache: the next build never links it.

After each fault, `bazel clean` and a build of the same set from the cache
with --remote_download_all must be all cache hits and byte-identical to the
reference: nothing wrong was stored.

5. tools/cache_report's scale-out simulation on the reference's real logs,
   staged and staged = false.
"""

import glob
import hashlib
import os
import shutil
import signal
import subprocess
import time
import unittest

from tests.e2e.checkout_lib import Checkout
from tests.remote import reapi
from tools.cache_report import cache_report_lib
from tools.cache_report import scaleout_lib

TARGET = "@rules_cuda_stages_examples//vector_add:vector_add_demo"
S1 = "sm_90"
S2 = "sm_80,sm_90,compute_90"
S3 = "sm_86,sm_90"
RETRY_MESSAGE = "Found transient remote cache error, retrying the build"
EVICTED_MESSAGE = "do not exist remotely"
CUBIN = "_cuda/vector_add/vector_add/compute_{a}/sm_{a}/vector_add.cubin"  # in the package's output directory


def _archs(archs):
    return "--//cuda_rules:archs=" + archs


def _pkg_dir(checkout):
    """The output directory of the examples' vector_add package (repository name ends in ~ or +)."""
    bin_dir = checkout.bazel("info", "bazel-bin").strip()
    for name in ("rules_cuda_stages_examples+", "rules_cuda_stages_examples~"):
        path = os.path.join(bin_dir, "external", name, "vector_add")
        if os.path.isdir(path):
            return path
    raise AssertionError("no vector_add output directory under %s/external" % bin_dir)


def snapshot(checkout):
    """{path under the package's output directory: sha256} of every regular file there (no runfiles)."""
    root = _pkg_dir(checkout)
    out = {}
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.endswith(".runfiles")]
        for name in files:
            path = os.path.join(dirpath, name)
            if os.path.islink(path) or name.endswith(("runfiles_manifest", ".repo_mapping")):
                continue
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


def differences(got, reference):
    """Files of `got` that the reference lacks or holds with other bytes."""
    return sorted(p for p in got if reference.get(p) != got[p])


def _cas_blob(cache_root, data):
    """Path of `data`'s blob in a disk cache / RemoteWorker CAS directory (cas/<2 hex>/<sha256>)."""
    digest = hashlib.sha256(data).hexdigest()
    return os.path.join(cache_root, "cas", digest[:2], digest)


class FaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = cls.tmp = os.environ["TEST_TMPDIR"]
        cls.worker = None
        cls.ref = Checkout(tmp, "reference")
        cls.a = Checkout(tmp, "a")
        cls.b = Checkout(tmp, "b")
        try:
            cls._reference()
            cls._eviction_disk_cache()
            cls._eviction_remote_cache()
            cls._concurrent_builds()
            cls._killed_build()
            cls._corrupted_blob()
        finally:
            if cls.worker:
                cls.worker.stop()
            for checkout in (cls.ref, cls.a, cls.b):
                try:
                    checkout.bazel("shutdown")
                except AssertionError:
                    pass

    @classmethod
    def _log(cls, name):
        return os.path.join(cls.tmp, name + ".binlog")

    @classmethod
    def _reference(cls):
        cls.reference = {}
        ref = cls.ref
        ref.bazel("build", "--//cuda_rules:staged=false", _archs(S2), "--execution_log_binary_file=" + cls._log("unstaged"),
                  TARGET)
        ref.bazel("clean")
        ref.bazel("build", _archs(S2), "--execution_log_binary_file=" + cls._log("staged"), TARGET)
        cls.reference[S2] = snapshot(ref)
        ref.bazel("build", _archs(S1), TARGET)
        cls.reference[S1] = snapshot(ref)
        ref.bazel("build", _archs(S3), TARGET)
        cls.reference[S3] = snapshot(ref)

    @classmethod
    def _verify_from_cache(cls, checkout, archs, cache_flags, name):
        """`bazel clean`, then the set again from the cache with every output downloaded; returns (snapshot, spawns)."""
        checkout.bazel("clean")
        checkout.bazel("build", _archs(archs), "--execution_log_binary_file=" + cls._log(name), *cache_flags,
                       "--remote_download_all", TARGET)
        return snapshot(checkout), cache_report_lib.read_log(cls._log(name))

    @classmethod
    def _eviction_disk_cache(cls):
        a = cls.a
        cache = os.path.join(cls.tmp, "evicted_disk_cache")
        saved = cache + ".filled"
        flag = "--disk_cache=" + cache
        a.bazel("build", _archs(S1), flag, TARGET)
        shutil.copytree(cache, saved)

        def served_then_evicted():
            a.bazel("clean")
            shutil.rmtree(cache, ignore_errors=True)
            shutil.copytree(saved, cache)
            a.bazel("build", _archs(S1), flag, "--execution_log_binary_file=" + cls._log("served"), TARGET)
            shutil.rmtree(cache)  # a new cache directory, a GC that removed everything

        served_then_evicted()
        cls.served_spawns = cache_report_lib.read_log(cls._log("served"))
        cls.no_retry_error = a.bazel_fails("build", _archs(S2), flag, "--experimental_remote_cache_eviction_retries=0",
                                           TARGET)
        served_then_evicted()
        cls.retry_stderr = a.bazel_stderr("build", _archs(S2), flag, TARGET)
        cls.after_disk_eviction = snapshot(a)
        cls.disk_verify, cls.disk_verify_spawns = cls._verify_from_cache(a, S2, [flag], "disk_verify")

    @classmethod
    def _eviction_remote_cache(cls):
        a = cls.a
        classes, classpath = reapi.build_remote_worker(os.path.join(cls.tmp, "remote_worker"))
        cls.worker = reapi.RemoteWorker(os.path.join(cls.tmp, "server")).start(classes, classpath)
        flags = ["--config=remote-cache", "--remote_cache=" + cls.worker.address]
        a.bazel("clean")
        a.bazel("build", _archs(S1), *flags, TARGET)
        a.bazel("clean")
        a.bazel("build", _archs(S1), *flags, "--execution_log_binary_file=" + cls._log("remote_served"), TARGET)
        cls.remote_served_spawns = cache_report_lib.read_log(cls._log("remote_served"))
        blobs = glob.glob(os.path.join(cls.worker.cas_path, "cas", "*", "*"))
        cls.deleted_blobs = len(blobs)
        for blob in blobs:
            os.remove(blob)
        cls.remote_retry_stderr = a.bazel_stderr("build", _archs(S2), *flags, TARGET)
        cls.after_remote_eviction = snapshot(a)
        cls.remote_verify, cls.remote_verify_spawns = cls._verify_from_cache(a, S2, flags, "remote_verify")
        cls.worker.stop()

    @classmethod
    def _concurrent_builds(cls):
        cache = cls.shared_cache = os.path.join(cls.tmp, "shared_disk_cache")
        flag = "--disk_cache=" + cache
        for checkout in (cls.a, cls.b):
            checkout.bazel("clean")
            # Analysis first, so that the two builds overlap in execution.
            checkout.bazel("build", "--nobuild", _archs(S2 if checkout is cls.a else S3), flag, "--remote_download_all",
                           TARGET)
        one = cls.a.start("build", _archs(S2), flag, "--remote_download_all", TARGET)
        two = cls.b.start("build", _archs(S3), flag, "--remote_download_all", TARGET)
        cls.concurrent_status = []
        for proc in (one, two):
            output = proc.communicate(timeout=900)[0]
            cls.concurrent_status.append((proc.returncode, output[-3000:]))
        cls.concurrent = {S2: snapshot(cls.a), S3: snapshot(cls.b)}
        cls.concurrent_verify = {
            S2: cls._verify_from_cache(cls.a, S2, [flag], "concurrent_verify_a"),
            S3: cls._verify_from_cache(cls.b, S3, [flag], "concurrent_verify_b"),
        }

    @classmethod
    def _killed_build(cls):
        a = cls.a
        cache = os.path.join(cls.tmp, "killed_disk_cache")
        flag = "--disk_cache=" + cache
        a.bazel("clean")
        a.bazel("build", "--nobuild", _archs(S3), flag, TARGET)
        server = int(a.bazel("info", "server_pid").strip())
        build = a.start("build", _archs(S3), flag, TARGET)
        cls.killed_tools = []
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and build.poll() is None:
            tools = reapi.processes_in(a.output_base, ("cicc", "ptxas"))
            if tools:
                names = []
                for pid in tools:
                    with open("/proc/%d/comm" % pid) as f:
                        names.append(f.read().strip())
                os.kill(server, signal.SIGKILL)
                for pid in tools:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                cls.killed_tools = names
                break
            time.sleep(0.02)
        cls.killed_output = build.communicate(timeout=120)[0]
        cls.killed_status = build.returncode
        cls.rebuild_stderr = a.bazel_stderr("build", _archs(S3), flag, TARGET)
        cls.after_kill = snapshot(a)
        cls.kill_verify, cls.kill_verify_spawns = cls._verify_from_cache(a, S3, [flag], "kill_verify")

    @classmethod
    def _corrupted_blob(cls):
        b = cls.b
        flag = "--disk_cache=" + cls.shared_cache
        with open(os.path.join(_pkg_dir(b), CUBIN.format(a="90")), "rb") as f:
            good = f.read()
        blob = _cas_blob(cls.shared_cache, good)
        cls.corrupted_blob_found = os.path.exists(blob)
        if cls.corrupted_blob_found:
            with open(blob, "r+b") as f:
                f.seek(len(good) // 2)
                f.write(bytes(x ^ 0xFF for x in good[len(good) // 2:len(good) // 2 + 16]))
        b.bazel("clean")
        try:
            cls.corrupted_stderr = b.bazel_stderr("build", _archs(S3), flag, "--remote_download_all", TARGET)
            cls.after_corruption = snapshot(b)
        except AssertionError as e:
            cls.corrupted_stderr = str(e)
            cls.after_corruption = None
        # Once more from the same cache: the bad blob must not come back.
        cls.corruption_verify, spawns = cls._verify_from_cache(b, S3, [flag], "corruption_verify")
        cls.reran_after_corruption = sorted((s.mnemonic, s.arch) for s in spawns
                                            if s.mnemonic.startswith("Cuda") and not s.cache_hit)

    # -- 1. eviction ---------------------------------------------------------

    def test_evicted_disk_cache_fails_without_retries(self):
        self.assertTrue(all(s.cache_hit for s in self.served_spawns if s.mnemonic.startswith("Cuda")),
                        "the S1 build was not served from the disk cache")
        self.assertIn(EVICTED_MESSAGE, self.no_retry_error)

    def test_evicted_disk_cache_passes_with_retries(self):
        self.assertIn(RETRY_MESSAGE, self.retry_stderr)
        print("\nevicted disk cache, what the user sees:\n  " + "\n  ".join(
            line for line in self.retry_stderr.splitlines() if "emote" in line or "retrying" in line)[:1500])
        self.assertIn("vector_add_demo", self.after_disk_eviction)
        self.assertEqual(differences(self.after_disk_eviction, self.reference[S2]), [])
        self._assert_served_right(self.disk_verify, self.disk_verify_spawns, S2)

    def test_evicted_remote_cache_passes_with_retries(self):
        self.assertTrue(all(s.runner == "remote cache hit" for s in self.remote_served_spawns
                            if s.mnemonic.startswith("Cuda")), "the S1 build was not served from the remote cache")
        self.assertGreater(self.deleted_blobs, 0)
        self.assertIn(RETRY_MESSAGE, self.remote_retry_stderr)
        self.assertIn("vector_add_demo", self.after_remote_eviction)
        self.assertEqual(differences(self.after_remote_eviction, self.reference[S2]), [])
        self._assert_served_right(self.remote_verify, self.remote_verify_spawns, S2)

    # -- 2. concurrent builds ------------------------------------------------

    def test_concurrent_builds_sharing_a_disk_cache(self):
        for status, output in self.concurrent_status:
            self.assertEqual(status, 0, output)
        for archs in (S2, S3):
            self.assertIn(CUBIN.format(a="90"), self.concurrent[archs])
            self.assertEqual(differences(self.concurrent[archs], self.reference[archs]), [])
            self._assert_served_right(*self.concurrent_verify[archs], archs)

    # -- 3. a killed build ---------------------------------------------------

    def test_build_killed_during_cicc_or_ptxas(self):
        self.assertTrue(self.killed_tools, "no cicc or ptxas was seen running: nothing was killed")
        self.assertNotEqual(self.killed_status, 0, self.killed_output[-2000:])
        print("\nkilled during %s; the client said: %s\nthe next build said: %s" % (
            ", ".join(self.killed_tools), self.killed_output.strip()[-300:],
            " | ".join(line for line in self.rebuild_stderr.splitlines() if line.startswith(("INFO", "WARNING")))[-600:]))
        self.assertEqual(differences(self.after_kill, self.reference[S3]), [])
        self.assertIn(CUBIN.format(a="86"), self.after_kill)
        self._assert_served_right(self.kill_verify, self.kill_verify_spawns, S3)

    # -- 4. a corrupted blob -------------------------------------------------

    def test_corrupted_blob_is_never_linked(self):
        self.assertTrue(self.corrupted_blob_found, "the sm_90 cubin's blob was not in the disk cache")
        print("\nafter corrupting the sm_90 cubin's blob: %s" % (
            "the build failed: " + self.corrupted_stderr[-500:] if self.after_corruption is None
            else "the build succeeded: " + " | ".join(
                line for line in self.corrupted_stderr.splitlines() if "WARNING" in line)[-800:]))
        if self.after_corruption is None:
            self.assertIn("digest", self.corrupted_stderr.lower())
        else:
            self.assertEqual(differences(self.after_corruption, self.reference[S3]), [])
            self.assertIn(CUBIN.format(a="90"), self.after_corruption)
        print("the next clean build from that cache re-ran: %s" % (self.reran_after_corruption or "nothing"))
        # Bazel does not replace the bad blob: a later build re-runs that one stage, and nothing else.
        self.assertIn(self.reran_after_corruption, ([], [("CudaPtxas", "sm_90")]))
        self.assertEqual(differences(self.corruption_verify, self.reference[S3]), [])
        self.assertIn("vector_add_demo", self.corruption_verify)

    # -- 5. scale-out simulation on real logs --------------------------------

    def test_scaleout_simulation_of_real_logs(self):
        staged = scaleout_lib.curve("staged", cache_report_lib.read_log(self._log("staged")))
        unstaged = scaleout_lib.curve("unstaged", cache_report_lib.read_log(self._log("unstaged")))
        print("\n" + scaleout_lib.format_curves([staged, unstaged], "table"))
        for c in (staged, unstaged):
            self.assertEqual(c.cache_hits, 0)
            self.assertAlmostEqual(c.walls[1], c.work, places=6)
            self.assertAlmostEqual(c.walls[1024], c.chain, places=6)
            self.assertEqual(c.chain_actions[-1].mnemonic, "CppLink")
        stages = [a.mnemonic for a in staged.chain_actions]
        self.assertEqual(stages[0], "CudaPlan")
        self.assertIn("CudaHostCompile", stages)
        self.assertIn("CudaCompile", [a.mnemonic for a in unstaged.chain_actions])
        # 3 archs' device stages run side by side: staged gains from a second executor.
        self.assertLess(staged.walls[2], staged.walls[1])

    # -- helpers -------------------------------------------------------------

    def _assert_served_right(self, outputs, spawns, archs):
        """A clean build from the cache after a fault: all CUDA stages hits, all outputs the reference's."""
        cuda = [s for s in spawns if s.mnemonic.startswith("Cuda")]
        self.assertTrue(cuda)
        self.assertEqual([(s.mnemonic, s.arch) for s in cuda if not s.cache_hit], [], "not from the cache")
        for arch in archs.split(","):
            if arch.startswith("sm_"):
                self.assertIn(CUBIN.format(a=arch[3:]), outputs)
        self.assertIn("vector_add_demo", outputs)
        self.assertEqual(differences(outputs, self.reference[archs]), [])


if __name__ == "__main__":
    unittest.main()
