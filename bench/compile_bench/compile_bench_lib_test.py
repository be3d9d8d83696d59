"""The pure logic of bench/run: CPU accounting, medians, paired ratios, tables, the corpus, nvcc's flags."""

import os
import sys
import tempfile
import unittest
from unittest import mock

from tools.cache_report.cache_report_lib import Spawn
from bench.compile_bench import compile_bench_lib as lib
from bench.compile_bench import nvcc_runs

# A real /proc/<pid>/stat line of a Bazel server, with a command name that
# holds a space and a parenthesis (allowed, and the reason to parse from the last ')').
STAT = ("6985 (java x) y) S 1 6985 6985 0 -1 4194304 150453 3221702 9 207 1683 355 7098 847 20 0 32 0 "
        "965516 9228693504 91683 18446744073709551615 94709767606272 94709767607173 140726355662896 0 0 0 0 1")


def run(rep, wall, cpu=None, variant="v", **extra):
    r = {"variant": variant, "archs": "sm_90", "rep": rep, "wall_s": wall, "cpu_s": cpu}
    r.update(extra)
    return r


class ProcStatTest(unittest.TestCase):
    def test_own_and_children(self):
        own, children = lib.parse_proc_stat(STAT, 100)
        self.assertAlmostEqual(own, (1683 + 355) / 100)
        self.assertAlmostEqual(children, (7098 + 847) / 100)

    def test_garbage(self):
        with self.assertRaises(lib.StatError):
            lib.parse_proc_stat("no parentheses here", 100)
        with self.assertRaises(lib.StatError):
            lib.parse_proc_stat("1 (x) S 1 2", 100)


class StatsTest(unittest.TestCase):
    def test_median_and_spread_skip_none(self):
        self.assertEqual(lib.median([3, None, 1, 2]), 2)
        self.assertIsNone(lib.median([None]))
        self.assertEqual(lib.spread([3, None, 1]), (1, 3))
        self.assertEqual(lib.spread([]), (None, None))

    def test_ratios_are_paired_by_repetition(self):
        a = [run(1, 10.0), run(2, 30.0), run(3, 20.0)]
        b = [run(2, 15.0), run(1, 5.0)]  # no rep 3: that run of a is left out
        self.assertEqual(sorted(lib.paired_ratios(a, b, "wall_s")), [2.0, 2.0])
        s = lib.ratio_summary(a, b, "wall_s")
        self.assertEqual((s["median"], s["min"], s["max"], s["n"]), (2.0, 2.0, 2.0, 2))
        self.assertIsNone(lib.ratio_summary(a, [], "wall_s"))

    def test_cpu_of_the_compilers(self):
        bazel = run(1, 1.0, cpu=12.0, cpu_actions_s=10.0, cpu_server_s=2.0)
        plain = run(1, 1.0, cpu=9.0)
        self.assertEqual(lib.metric(bazel, "cpu_actions_s"), 10.0)
        self.assertEqual(lib.metric(plain, "cpu_actions_s"), 9.0)  # no Bazel: all CPU is the compilers'
        self.assertEqual(lib.metric(bazel, "cpu_s"), 12.0)

    def test_group_by_what_is_measured(self):
        runs = [run(2, 1.0), run(1, 2.0), run(1, 3.0, variant="w", scenario="edit")]
        groups = lib.group(runs)
        self.assertEqual([r["rep"] for r in groups[("v", "cold", "sm_90", "corpus", None)]], [1, 2])
        self.assertIn(("w", "edit", "sm_90", "corpus", None), groups)


class FormatTest(unittest.TestCase):
    def test_formats(self):
        self.assertEqual(lib.fmt_s(None), "–")
        self.assertEqual(lib.fmt_s(123.44), "123.4 s")
        self.assertEqual(lib.fmt_s(1.234), "1.23 s")
        self.assertEqual(lib.fmt_ratio({"median": 1.5, "min": 1.25, "max": 2.0, "n": 3}), "1.50x (1.25–2.00)")
        self.assertEqual(lib.fmt_ratio({"median": 1.5, "min": 1.5, "max": 1.5, "n": 1}), "1.50x")
        self.assertEqual(lib.fmt_pct(0.9876), "98.8 %")
        self.assertEqual(lib.markdown_table(["a", "b"], [[1, "x"]]), "| a | b |\n| --- | --- |\n| 1 | x |")


class ExecLogTest(unittest.TestCase):
    def test_stage_totals_and_targets(self):
        spawns = [
            Spawn("CudaPtxas", ["x/compute_90/sm_90/k.cubin"], False, "linux-sandbox", 2.5, "@@b~//:k"),
            Spawn("CudaPtxas", ["x/compute_80/sm_80/k.cubin"], True, "disk cache hit", 0.0, "@@b~//:k"),
            Spawn("CppCompile", ["x/k.o"], False, "linux-sandbox", 1.0, "@@b~//:k"),
        ]
        self.assertEqual(lib.stage_totals(spawns), {"CudaPtxas": {"executed": 1, "hits": 1, "executed_s": 2.5}})
        self.assertEqual(lib.target_name("@@rules_cuda_stages_bench~//:elementwise"), "elementwise")


class CorpusTest(unittest.TestCase):
    def test_the_corpus_is_a_plain_literal(self):
        path = os.path.join(os.environ["TEST_SRCDIR"], os.environ["CORPUS_BZL"])
        corpus = nvcc_runs.read_corpus(path)
        self.assertGreaterEqual(len(corpus), 12)
        self.assertEqual({info["kind"] for info in corpus.values()}, {"plain", "templates", "cccl", "ptxas"})
        for info in corpus.values():
            self.assertIsInstance(info["copts"], list)

    def test_gencode_flags_match_cuda_library(self):
        # The same flags as cuda_library's (tests/cuda_library: one -gencode per virtual arch, cubins before the PTX).
        self.assertEqual(nvcc_runs.gencode_flags("sm_75,sm_80,sm_86,compute_90,sm_90"), [
            "-gencode=arch=compute_75,code=[sm_75]",
            "-gencode=arch=compute_80,code=[sm_80]",
            "-gencode=arch=compute_86,code=[sm_86]",
            "-gencode=arch=compute_90,code=[sm_90,compute_90]",
        ])
        with self.assertRaises(ValueError):
            nvcc_runs.gencode_flags("sm_9x")

    def test_critical_path(self):
        self.assertEqual(nvcc_runs.critical_path_s("stages: 17\ncritical path: 12.5 s of 40.1 s\n"), 12.5)
        self.assertIsNone(nvcc_runs.critical_path_s("nothing"))


class ByteCompileTest(unittest.TestCase):
    def test_the_default_runners_modules_only(self):
        repo = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        pkg = os.path.join(repo, "tools", "nvcc_plan")
        os.makedirs(pkg)
        for name in ("nvcc_plan.py", "runner.py"):
            with open(os.path.join(pkg, name), "w") as f:
                f.write("X = 1\n")
        script = os.path.join(pkg, "nvcc_plan.py")
        with mock.patch.object(nvcc_runs, "REPO", repo):
            self.assertEqual(nvcc_runs.byte_compile_runner("/opt/other/runner --run"), [])
            self.assertEqual(nvcc_runs.byte_compile_runner("%s %s --run" % (sys.executable, script))[0], pkg)
        self.assertEqual(
            sorted(n.split(".")[0] for n in os.listdir(os.path.join(pkg, "__pycache__"))), ["nvcc_plan", "runner"])


if __name__ == "__main__":
    unittest.main()
