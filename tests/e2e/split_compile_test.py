"""Split compilation end to end (issue 42), with real nested Bazel builds.

--@rules_cuda_stages//cuda_rules:split_compile=2 on the examples:

1. Bazel's local scheduler is told: every CudaCicc and CudaPtxas action (the
   stages nvcc 13.0 gives --split-compile's threads) declares 2 CPUs, so with
   --local_cpu_resources=4 the stage processes that run at once (read from
   Bazel's profile) never hold more than 4 CPUs, and two split actions never
   run beside a third action. With split_compile=0 (every CPU of the machine)
   no other action runs beside a split one.
2. Reproducible: a second checkout at another path, with its own output base
   and cache, compiles the CUB example to the same bytes (PTX, cubins,
   fatbinary, objects).
3. CI -> developer: CI's build of the shipped set with the setting, then a
   developer's sm_90 build with it against CI's disk cache: every device stage
   and host compile is a cache hit.
"""

import gzip
import json
import os
import sys
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout
from tools.cache_report import cache_report_lib

TARGETS = ["@rules_cuda_stages_examples//..."]
CUB = "@rules_cuda_stages_examples//cub_reduce:all"
SPLIT = "--//cuda_rules:split_compile=2"
SPLIT_STAGES = ("CudaCicc", "CudaPtxas")
# The examples' CUDA sources (reuse_test.SOURCES).
SOURCES = 5


def _processes(profile):
    """[(start, end, mnemonic)] of every action's process in a Bazel JSON profile (microseconds)."""
    with (gzip.open if profile.endswith(".gz") else open)(profile, "rt") as f:
        events = json.load(f)["traceEvents"]
    actions = [e for e in events if e.get("cat") == "action processing" and "dur" in e]
    runs = [e for e in events if e.get("name") == "subprocess.run" and "dur" in e]
    out = []
    for run in runs:
        owner = [a for a in actions if a["tid"] == run["tid"] and a["ts"] <= run["ts"] <= a["ts"] + a["dur"]]
        if owner:
            out.append((run["ts"], run["ts"] + run["dur"], owner[0]["args"]["mnemonic"]))
    return out


def _most_at_once(processes, cpus):
    """The most CPUs held at one time, each process holding cpus(mnemonic)."""
    events = sorted([(s, cpus(m)) for s, _, m in processes] + [(e, -cpus(m)) for _, e, m in processes])
    held, most = 0, 0
    for _, step in events:  # an end sorts before a start at the same time
        held += step
        most = max(most, held)
    return most


class SplitCompileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        cls.disk_cache = os.path.join(tmp, "disk_cache")
        cls.one = Checkout(tmp, "ci")
        cls.two = Checkout(tmp, "developer-checkout-at-a-longer-path")
        cls.ci_log = os.path.join(tmp, "ci.json")
        cls.ci_profile = os.path.join(tmp, "ci.profile.gz")
        cls.all_cpus_profile = os.path.join(tmp, "all_cpus.profile.gz")
        cls.dev_log = os.path.join(tmp, "dev.json")
        try:
            # CI: the shipped set (4 archs), split compilation in 2 threads, 4 CPUs for Bazel.
            cls.one.bazel("build", SPLIT, "--local_cpu_resources=4", "--jobs=8", "--disk_cache=" + cls.disk_cache,
                          "--execution_log_json_file=" + cls.ci_log, "--profile=" + cls.ci_profile, *TARGETS)
            cls.ci_scripts = cls.one.plan_scripts()
            cls.one_outputs = cls.one.cuda_outputs()
            # Every CPU of the machine, for one source's 4 archs.
            cls.one.bazel("build", "--//cuda_rules:split_compile=0", "--local_cpu_resources=4", "--jobs=8",
                          "--profile=" + cls.all_cpus_profile, "@rules_cuda_stages_examples//vector_add:vector_add")
            # Another checkout, its own cache: the CUB example cold.
            cls.two.bazel("build", SPLIT, "--disk_cache=" + os.path.join(tmp, "disk_cache_two"), CUB)
            cls.two_outputs = cls.two.cuda_outputs()
            # The developer: sm_90 only, against CI's cache.
            cls.two.bazel("clean")
            cls.two.bazel("build", SPLIT, "--//cuda_rules:archs=sm_90", "--disk_cache=" + cls.disk_cache,
                          "--execution_log_json_file=" + cls.dev_log, *TARGETS)
        finally:
            checkout_lib.shut_down(cls.one, cls.two)

    def test_split_stages_run_the_threads(self):
        checked = 0
        for path, text in self.ci_scripts.items():
            name = os.path.basename(path)
            if name.startswith("cicc.") or name.startswith("ptxas."):
                self.assertRegex(text, r"-split-compile[= ]2 ", path)
                checked += 1
            elif name in ("preprocess.sh", "host_compile.sh"):
                self.assertNotIn("-split-compile", text, path)
        self.assertGreaterEqual(checked, SOURCES * 8)  # 4 cicc and 4 ptxas per source

    def test_bazel_counts_the_threads_against_its_cpus(self):
        processes = _processes(self.ci_profile)
        split = [p for p in processes if p[2] in SPLIT_STAGES]
        self.assertGreaterEqual(len(split), SOURCES * 8)
        most = _most_at_once(processes, lambda m: 2 if m in SPLIT_STAGES else 1)
        print("\nmost CPUs held at once (split actions 2 each): %d of --local_cpu_resources=4" % most)
        self.assertLessEqual(most, 4)
        # Counted as 1 CPU each, they would have looked like room for more: the accounting is what held them back.
        self.assertGreater(most, 1)

    def test_all_cpus_runs_each_split_action_alone(self):
        processes = _processes(self.all_cpus_profile)
        split = [p for p in processes if p[2] in SPLIT_STAGES]
        self.assertEqual(len(split), 8)  # vector_add.cu at 4 archs: cicc and ptxas
        for s, e, m in split:
            beside = [p for p in processes if p[0] < e and s < p[1] and (p[0], p[1]) != (s, e)]
            self.assertEqual(beside, [], "%s ran beside other actions" % m)

    def test_two_checkouts_compile_the_same_bytes(self):
        cub = {k: v for k, v in self.two_outputs.items() if "/cub_reduce/" in "/" + k}
        self.assertGreaterEqual(len([k for k in cub if k.endswith(".cubin")]), 4)
        self.assertEqual({k: self.one_outputs.get(k) for k in cub}, cub)

    def test_developer_sm90_build_reuses_cis_device_code(self):
        spawns = cache_report_lib.read_log(self.dev_log)
        reused = [s for s in spawns if s.mnemonic in ("CudaPreprocess", "CudaFrontend", "CudaHostCompile") + SPLIT_STAGES]
        self.assertEqual(len(reused), SOURCES * 5, [(s.target, s.mnemonic) for s in reused])
        misses = [(s.target, s.mnemonic, s.arch) for s in reused if not s.cache_hit]
        self.assertEqual(misses, [], "stages of the sm_90 build that were not cache hits")
        rows = cache_report_lib.summarize(spawns, cache_report_lib.read_log(self.ci_log))
        sys.stdout.write(cache_report_lib.format_rows(rows, "table"))
        self.assertEqual(cache_report_lib.device_fraction_from_cache(rows), 1.0)


if __name__ == "__main__":
    checkout_lib.main()
