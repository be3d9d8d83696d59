"""Cache faults lose no build and serve nothing wrong (nested Bazel builds of vector_add).

A reference build of three arch sets with no cache at all comes first (in
checkout `b`, before it uses any cache); every other build's outputs must be
byte-identical to the reference's for the same set.
All three are subsets of the shipped set, so their stage keys are shared
(docs/cuda_library.md, "Archs").

Each fault is a record of fault_table.py: what is done to the cache or the
build, then each command the test runs after it and what that command must
show (exit code, messages, the CUDA stages that ran, identical outputs). The
test checks every step against its record, and docs/remote.md's table
"Faults, what a user sees" is rendered from the same records. Two checkouts:

- `a` builds with Bazel 7's defaults and the `.bazelrc`'s retries: its
  `.bazelrc` lacks the line that downloads stage outputs on a cache hit
  (--remote_download_regex), as a user's who did not copy it;
- `b` builds with the `.bazelrc` as it is; it builds the reference first
  (a checkout of its own for it would cost one more cold Bazel server and
  output base, and hold nothing else: `b` runs `bazel clean` before its first
  build from a cache).

Faults: eviction between two builds in one Bazel server (disk cache, a REAPI
cache: Bazel's RemoteWorker on 127.0.0.1); two builds of different arch sets
sharing a disk cache at once; a build killed during cicc or ptxas; a
damaged cubin blob in the disk cache or the REAPI CAS before the developer's
arch-subset build (recovered by itself with the `.bazelrc`; failing, then
`bazel run //tools/repair_cache`, then passing without it). After each
fault, `bazel clean` and a build of the same set from the cache with
--remote_download_all must be all cache hits and byte-identical to the
reference: nothing wrong was stored.

Last, tools/cache_report's scale-out simulation on the reference's real logs,
staged and staged = false.
"""

import glob
import hashlib
import os
import shutil
import signal
import time
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout
from tests.faults import fault_table
from tests.faults.fault_table import NONZERO
from tests.remote import reapi
from tools.cache_report import cache_report_lib
from tools.cache_report import scaleout_lib

TARGET = "@rules_cuda_stages_examples//vector_add:vector_add_demo"
S1 = "sm_90"
S2 = "sm_80,sm_90,compute_90"
S3 = "sm_86,sm_90"
CUBIN = "_cuda/vector_add/vector_add/compute_{a}/sm_{a}/vector_add.cubin"  # in the package's output directory
DOWNLOAD_REGEX_LINE = "common --remote_download_regex="


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


def _damage(path, how):
    """Damages a blob in place: "flip" one byte, "truncate" to half, "zero" every byte."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if how == "flip":
        data[len(data) // 2] ^= 0xFF
    elif how == "truncate":
        data = data[: len(data) // 2]
    else:
        data = bytearray(len(data))
    with open(path, "wb") as f:
        f.write(data)


def _without_download_regex(checkout):
    """Drops the .bazelrc line that downloads stage outputs on a hit: Bazel's own default remains."""
    path = os.path.join(checkout.dir, ".bazelrc")
    with open(path) as f:
        lines = f.read().splitlines(True)
    kept = [line for line in lines if not line.startswith(DOWNLOAD_REGEX_LINE)]
    if len(kept) != len(lines) - 1:
        raise AssertionError("the .bazelrc has %d lines starting %r, expected one" % (
            len(lines) - len(kept), DOWNLOAD_REGEX_LINE))
    with open(path, "w") as f:
        f.write("".join(kept))


class Result:
    """What one step of a fault showed: exit code, Bazel's (or the tool's) output, its CUDA spawns, the outputs."""

    def __init__(self, code, output, spawns=None, outputs=None):
        self.code = code
        self.output = output
        self.spawns = spawns
        self.outputs = outputs


class FaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = cls.tmp = os.environ["TEST_TMPDIR"]
        cls.worker = None
        cls.results = {}  # fault name -> [Result] per step
        cls.served = {}  # fault name -> [(archs, outputs, spawns)]
        cls.a = Checkout(tmp, "a")
        _without_download_regex(cls.a)
        cls.b = Checkout(tmp, "b")
        cls._log_count = 0
        try:
            cls._reference()
            classes, classpath = reapi.build_remote_worker(os.path.join(tmp, "remote_worker"))
            cls.worker_binary = (classes, classpath)
            cls._evicted_disk_cache()
            cls._evicted_remote_cache()
            cls._concurrent_builds()
            cls._killed_build()
            cls._damaged_cubin_disk_cache()
            cls._damaged_cubin_remote_cache()
        finally:
            if cls.worker:
                cls.worker.stop()
            checkout_lib.shut_down(cls.a, cls.b)

    # -- helpers -------------------------------------------------------------

    @classmethod
    def _log(cls, name):
        return os.path.join(cls.tmp, name + ".binlog")

    @classmethod
    def _build(cls, checkout, archs, *flags, outputs=True):
        """A build of TARGET; returns its Result (spawns from its execution log, outputs if it passed)."""
        cls._log_count += 1
        log = cls._log("step%d" % cls._log_count)
        code, out, err = checkout.bazel_result("build", _archs(archs), "--execution_log_binary_file=" + log, *flags,
                                               TARGET)
        spawns = cache_report_lib.read_log(log) if os.path.exists(log) and os.path.getsize(log) else []
        return Result(code, out + err, spawns, snapshot(checkout) if code == 0 and outputs else None)

    @classmethod
    def _repair(cls, checkout, cache_dir, *flags):
        """The shipped repair command, run through the checkout's Bazel (bazel run //tools/repair_cache)."""
        code, out, err = checkout.bazel_result("run", *flags, "//tools/repair_cache", "--", cache_dir)
        return Result(code, out + err)

    @classmethod
    def _record(cls, name, *results):
        cls.results.setdefault(name, []).extend(results)

    @classmethod
    def _served(cls, name, checkout, archs, flags):
        """`bazel clean`, then the set again from the cache with every output downloaded (twice where the record says)."""
        times = 2 if fault_table.BY_NAME[name].served_after == fault_table.ONCE_MORE else 1
        for _ in range(times):
            checkout.bazel("clean")
            result = cls._build(checkout, archs, *flags, "--remote_download_all")  # after --config=remote-cache's toplevel
            cls.served.setdefault(name, []).append((archs, result))

    @classmethod
    def _start_worker(cls, root, cas_from=None):
        """A RemoteWorker on a free port; its CAS a copy of `cas_from` when given."""
        if cls.worker:
            cls.worker.stop()
        cls.worker = reapi.RemoteWorker(root)
        if cas_from:
            shutil.copytree(cas_from, cls.worker.cas_path)
        return cls.worker.start(*cls.worker_binary)

    # -- the reference -------------------------------------------------------

    @classmethod
    def _reference(cls):
        cls.reference = {}
        ref = cls.b  # no cache yet: the reference
        ref.bazel("build", "--//cuda_rules:staged=false", _archs(S2), "--execution_log_binary_file=" + cls._log("unstaged"),
                  TARGET)
        ref.bazel("clean")
        ref.bazel("build", _archs(S2), "--execution_log_binary_file=" + cls._log("staged"), TARGET)
        cls.reference[S2] = snapshot(ref)
        ref.bazel("build", _archs(S1), TARGET)
        cls.reference[S1] = snapshot(ref)
        ref.bazel("build", _archs(S3), TARGET)
        cls.reference[S3] = snapshot(ref)
        with open(os.path.join(_pkg_dir(ref), CUBIN.format(a="90")), "rb") as f:
            cls.sm90_cubin = f.read()

    # -- faults ----------------------------------------------------------------

    @classmethod
    def _evicted_disk_cache(cls):
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
            cls.evicted_served = cls._build(a, S1, flag)
            shutil.rmtree(cache)  # a new cache directory, a GC that removed everything

        served_then_evicted()
        no_retries = cls._build(a, S2, flag, "--experimental_remote_cache_eviction_retries=0")
        served_then_evicted()
        cls._record("evicted_disk_cache", no_retries, cls._build(a, S2, flag))
        cls._served("evicted_disk_cache", a, S2, [flag])

    @classmethod
    def _evicted_remote_cache(cls):
        a = cls.a
        worker = cls._start_worker(os.path.join(cls.tmp, "server"))
        flags = ["--config=remote-cache", "--remote_cache=" + worker.address]
        a.bazel("clean")
        a.bazel("build", _archs(S1), *flags, TARGET)
        a.bazel("clean")
        cls.remote_served = cls._build(a, S1, *flags)
        blobs = glob.glob(os.path.join(worker.cas_path, "cas", "*", "*"))
        cls.deleted_blobs = len(blobs)
        for blob in blobs:
            os.remove(blob)
        cls._record("evicted_remote_cache", cls._build(a, S2, *flags))
        cls._served("evicted_remote_cache", a, S2, flags)
        worker.stop()

    @classmethod
    def _concurrent_builds(cls):
        cache = os.path.join(cls.tmp, "shared_disk_cache")
        flag = "--disk_cache=" + cache
        for checkout, archs in ((cls.a, S2), (cls.b, S3)):
            checkout.bazel("clean")
            # Analysis first, so that the two builds overlap in execution.
            checkout.bazel("build", "--nobuild", _archs(archs), flag, "--remote_download_all", TARGET)
        one = cls.a.start("build", _archs(S2), flag, "--remote_download_all", TARGET)
        two = cls.b.start("build", _archs(S3), flag, "--remote_download_all", TARGET)
        outputs = []
        for proc in (one, two):
            output = proc.communicate(timeout=900)[0]
            outputs.append((proc.returncode, output))
        cls.concurrent = [
            Result(outputs[0][0], outputs[0][1], outputs=snapshot(cls.a)),
            Result(outputs[1][0], outputs[1][1], outputs=snapshot(cls.b)),
        ]
        cls._served("concurrent_builds", cls.a, S2, [flag])
        cls._served("concurrent_builds", cls.b, S3, [flag])

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
        output = build.communicate(timeout=120)[0]
        cls._record("killed_build", Result(build.returncode, output), cls._build(a, S3, flag))
        cls._served("killed_build", a, S3, [flag])

    @classmethod
    def _ci_cache(cls, name, flags):
        """CI's build of the set S2 into a cache (a disk cache, or the worker's), from checkout b after `bazel clean`."""
        cls.b.bazel("clean")
        cls.b.bazel("build", _archs(S2), *flags, TARGET)

    @classmethod
    def _damaged_cubin_disk_cache(cls):
        ci = os.path.join(cls.tmp, "ci_disk_cache")
        cls._ci_cache("ci_disk_cache", ["--disk_cache=" + ci])
        cls.ci_blob_found = os.path.exists(_cas_blob(ci, cls.sm90_cubin))

        def damaged_copy(name, how):
            cache = os.path.join(cls.tmp, name)
            shutil.copytree(ci, cache)
            _damage(_cas_blob(cache, cls.sm90_cubin), how)
            return cache

        # With the .bazelrc: the developer's build recovers by itself; the
        # blob stays until repaired.
        name = "damaged_cubin_disk_cache"
        cache = damaged_copy(name, "flip")
        flag = "--disk_cache=" + cache
        b = cls.b
        b.bazel("clean")
        first = cls._build(b, S1, flag)
        b.bazel("clean")
        second = cls._build(b, S1, flag)
        repair = cls._repair(b, cache, flag)
        b.bazel("clean")
        cls._record(name, first, second, repair, cls._build(b, S1, flag))
        cls._served(name, b, S1, [flag])

        # Bazel's defaults: the build fails; the repair; the same build passes.
        name = "damaged_cubin_disk_cache_defaults"
        cache = damaged_copy(name, "truncate")
        flag = "--disk_cache=" + cache
        a = cls.a
        a.bazel("clean")
        failed = cls._build(a, S1, flag)
        repair = cls._repair(a, cache, flag)
        cls._record(name, failed, repair, cls._build(a, S1, flag))
        cls._served(name, a, S1, [flag])

    @classmethod
    def _damaged_cubin_remote_cache(cls):
        filled = os.path.join(cls.tmp, "ci_server")
        worker = cls._start_worker(filled)
        cls._ci_cache("ci_server", ["--config=remote-cache", "--remote_cache=" + worker.address])
        worker.stop()
        pristine = worker.cas_path

        for name, checkout, how in (
            ("damaged_cubin_remote_cache", cls.b, "zero"),
            ("damaged_cubin_remote_cache_defaults", cls.a, "flip"),
        ):
            worker = cls._start_worker(os.path.join(cls.tmp, name), cas_from=pristine)
            _damage(_cas_blob(worker.cas_path, cls.sm90_cubin), how)
            flags = ["--config=remote-cache", "--remote_cache=" + worker.address]
            checkout.bazel("clean")
            if checkout is cls.b:
                first = cls._build(checkout, S1, *flags)
                checkout.bazel("clean")
                second = cls._build(checkout, S1, *flags)
                repair = cls._repair(checkout, worker.cas_path, *flags)
                checkout.bazel("clean")
                cls._record(name, first, second, repair, cls._build(checkout, S1, *flags))
            else:
                failed = cls._build(checkout, S1, *flags)
                repair = cls._repair(checkout, worker.cas_path, *flags)  # while the server runs
                cls._record(name, failed, repair, cls._build(checkout, S1, *flags))
            cls._served(name, checkout, S1, flags)
            worker.stop()

    # -- checking a fault against its record ------------------------------------

    def _check_fault(self, name, archs, results=None):
        fault = fault_table.BY_NAME[name]
        results = results if results is not None else self.results.get(name, [])
        self.assertEqual(len(results), len(fault.steps), "%s: steps run" % name)
        print("\n%s:" % name)
        for i, (step, result) in enumerate(zip(fault.steps, results)):
            where = "%s, step %d (%s)" % (name, i + 1, step.command)
            print("  step %d: exit %s; %s" % (i + 1, result.code, " | ".join(
                line.strip() for line in result.output.splitlines()
                if any(k in line for k in ("ERROR", "WARNING: Remote", "retrying", "repair_cache", "removed",
                                           "terminated")))[:900]))
            if step.exit_code == NONZERO:
                self.assertNotEqual(result.code, 0, where + ": " + result.output[-3000:])
            else:
                self.assertEqual(result.code, step.exit_code, where + ": " + result.output[-3000:])
            for text in step.sees:
                self.assertIn(text, result.output, where)
            for text, n in step.times:
                self.assertEqual(result.output.count(text), n, "%s: times %r appears" % (where, text))
            for text in step.absent:
                self.assertNotIn(text, result.output, where)
            if step.ran or step.only_ran:
                ran = sorted({(s.mnemonic, s.arch) for s in result.spawns
                              if s.mnemonic.startswith("Cuda") and not s.cache_hit})
                for stage in step.ran:
                    self.assertIn(stage, ran, where + ": CUDA stages that ran")
                if step.only_ran:
                    self.assertEqual(ran, sorted(step.ran), where + ": CUDA stages that ran")
            if step.identical:
                outputs = result.outputs if isinstance(result.outputs, list) else [result.outputs]
                for got, want in zip(outputs, archs if isinstance(archs, list) else [archs]):
                    self.assertIn(CUBIN.format(a="90"), got, where)
                    self.assertEqual(differences(got, self.reference[want]), [], where + ": outputs vs the reference")
        served = self.served.get(name, [])
        self.assertTrue(served, name + ": no build from the cache afterwards")
        if fault.served_after == fault_table.ONCE_MORE:
            self.assertEqual(len(served), 2, name)
            (archs_served, first), (_, second) = served
            self._assert_served_right(first, archs_served, misses_allowed=True)
            self._assert_served_right(second, archs_served)
        else:
            self.assertEqual(fault.served_after, fault_table.ALL_HITS, name)
            for archs_served, result in served:
                self._assert_served_right(result, archs_served)

    def _assert_served_right(self, result, archs, misses_allowed=False):
        """A clean build from the cache after a fault: all CUDA stages hits (or no device stage ran), the reference's outputs."""
        self.assertEqual(result.code, 0, result.output[-3000:])
        cuda = [s for s in result.spawns if s.mnemonic.startswith("Cuda")]
        self.assertTrue(cuda)
        ran = [(s.mnemonic, s.arch) for s in cuda if not s.cache_hit]
        if misses_allowed:
            print("  served after, first build: re-ran %s" % (ran or "nothing"))
            self.assertEqual([r for r in ran if r[0] in ("CudaCicc", "CudaPtxas")], [], "device stages not from the cache")
        else:
            self.assertEqual(ran, [], "not from the cache")
        for arch in archs.split(","):
            if arch.startswith("sm_"):
                self.assertIn(CUBIN.format(a=arch[3:]), result.outputs)
        self.assertIn("vector_add_demo", result.outputs)
        self.assertEqual(differences(result.outputs, self.reference[archs]), [])

    # -- 1. eviction ---------------------------------------------------------

    def test_evicted_disk_cache(self):
        self.assertTrue(all(s.cache_hit for s in self.evicted_served.spawns if s.mnemonic.startswith("Cuda")),
                        "the S1 build was not served from the disk cache")
        self._check_fault("evicted_disk_cache", S2)

    def test_evicted_remote_cache(self):
        self.assertTrue(all(s.runner == "remote cache hit" for s in self.remote_served.spawns
                            if s.mnemonic.startswith("Cuda")), "the S1 build was not served from the remote cache")
        self.assertGreater(self.deleted_blobs, 0)
        self._check_fault("evicted_remote_cache", S2)

    # -- 2. concurrent builds ------------------------------------------------

    def test_concurrent_builds(self):
        (step,) = fault_table.BY_NAME["concurrent_builds"].steps
        for result in self.concurrent:
            self.assertEqual(result.code, step.exit_code, result.output[-3000:])
        both = Result(0, self.concurrent[0].output + self.concurrent[1].output,
                      outputs=[self.concurrent[0].outputs, self.concurrent[1].outputs])
        self._check_fault("concurrent_builds", [S2, S3], results=[both])

    # -- 3. a killed build ---------------------------------------------------

    def test_killed_build(self):
        self.assertTrue(self.killed_tools, "no cicc or ptxas was seen running: nothing was killed")
        print("\nkilled during %s" % ", ".join(self.killed_tools))
        self._check_fault("killed_build", S3)

    # -- 4. a damaged cubin before the developer's build ---------------------

    def test_damaged_cubin_disk_cache(self):
        self.assertTrue(self.ci_blob_found, "the sm_90 cubin's blob was not in CI's disk cache")
        self._check_fault("damaged_cubin_disk_cache", S1)

    def test_damaged_cubin_disk_cache_defaults(self):
        self._check_fault("damaged_cubin_disk_cache_defaults", S1)

    def test_damaged_cubin_remote_cache(self):
        self._check_fault("damaged_cubin_remote_cache", S1)

    def test_damaged_cubin_remote_cache_defaults(self):
        self._check_fault("damaged_cubin_remote_cache_defaults", S1)

    def test_every_fault_is_tested(self):
        tested = {name[len("test_"):] for name in dir(self) if name.startswith("test_")}
        self.assertEqual(sorted(f.name for f in fault_table.FAULTS if f.name not in tested), [])

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


if __name__ == "__main__":
    checkout_lib.main()
