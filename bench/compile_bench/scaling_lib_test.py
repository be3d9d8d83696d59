"""The scaling benchmark's generator and pure logic: shapes, sources, the edit, cases, parsing, tables."""

import json
import os
import re
import tempfile
import unittest

from tools.cache_report import cache_report_lib
from tools.cache_report import scaleout_lib
from tools.cache_report.cache_report_lib import Spawn
from bench.compile_bench import nvcc_runs
from bench.compile_bench import scaling_gen as gen
from bench.compile_bench import scaling_lib as sl

ARCHS4 = "sm_75,sm_80,sm_86,sm_90,compute_90"
ARCHS1 = "sm_90"


def _starlark_globals(text):
    """The globals of a generated .bzl file (plain assignments of literals and names)."""
    env = {}
    exec(compile(text, "corpus.bzl", "exec"), {}, env)  # a Starlark subset that is also Python
    return env


class ShapeTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(gen.parse_shape("n40"), gen.Shape("n40", 40, 40))
        self.assertEqual(gen.parse_shape("n200t10"), gen.Shape("n200t10", 200, 10))
        self.assertEqual(gen.parse_shape("n200t10").per_target, 20)
        for bad in ("", "40", "n0", "n7t2", "n5t6", "n10t0", "n20000", "n10x2"):
            with self.assertRaises(gen.ShapeError, msg=bad):
                gen.parse_shape(bad)

    def test_targets_split_the_sources_in_order(self):
        t = gen.targets(gen.parse_shape("n12t3"))
        self.assertEqual(list(t), ["lib00", "lib01", "lib02"])
        self.assertEqual(t["lib01"], ["k0004", "k0005", "k0006", "k0007"])
        self.assertEqual(sum(t.values(), []), [gen.source_name(i) for i in range(12)])
        one = gen.targets(gen.parse_shape("n3"))
        self.assertEqual(one, {"k0000": ["k0000"], "k0001": ["k0001"], "k0002": ["k0002"]})


class SourcesTest(unittest.TestCase):
    def test_each_source_is_one_kernel_and_its_launcher(self):
        kinds = set()
        for i in range(40):
            cu, h = gen.render_source(i)
            name = gen.source_name(i)
            kernel = "%s_%s" % (name, gen.kind_of(i))
            kinds.add(gen.kind_of(i))
            self.assertEqual(cu.count("__global__"), 1, name)
            self.assertIn("__global__ void %s(" % kernel, cu)
            self.assertIn("%s<" % kernel, cu)  # launched
            self.assertEqual(len(re.findall(r"^cudaError_t launch_%s\(" % name, cu, re.M)), 1)
            self.assertIn('#include "%s.h"' % name, cu)
            self.assertIn("cudaError_t launch_%s(const ScalingArgs& args, cudaStream_t stream);" % name, h)
            self.assertIn('#include "scaling_common.h"', h)
            self.assertEqual(cu.count("{"), cu.count("}"), name)
            self.assertEqual(cu.count("("), cu.count(")"), name)
            self.assertGreater(len(cu.splitlines()), 15, name)
            self.assertIn("kTweak", cu.split("namespace", 2)[-1], name)  # the edit reaches the kernel
        self.assertEqual(kinds, {k for k, _ in gen.KINDS})

    def test_sources_differ(self):
        texts = [gen.render_source(i)[0] for i in range(64)]
        self.assertEqual(len(set(texts)), 64)
        bodies = {t.split("\n", 1)[1].replace(gen.source_name(i), "kXXXX") for i, t in enumerate(texts)}
        self.assertEqual(len(bodies), 64)  # not renamed copies: each kind's parameters vary

    def test_a_source_is_the_same_in_every_shape(self):
        a = gen.workspace_files(gen.parse_shape("n8"))
        b = gen.workspace_files(gen.parse_shape("n200t10"))
        for i in range(8):
            for ext in (".cu", ".h"):
                self.assertEqual(a[gen.source_name(i) + ext], b[gen.source_name(i) + ext])
        self.assertEqual(a["scaling_common.h"], b["scaling_common.h"])

    def test_edit_changes_one_line_of_device_code(self):
        cu, _ = gen.render_source(3)
        edited = gen.edit_source(cu)
        diff = [(x, y) for x, y in zip(cu.splitlines(), edited.splitlines()) if x != y]
        self.assertEqual(len(cu.splitlines()), len(edited.splitlines()))
        self.assertEqual(len(diff), 1)
        self.assertIn("kTweak", diff[0][1])
        with self.assertRaises(ValueError):
            gen.edit_source(edited)


class WorkspaceTest(unittest.TestCase):
    def test_generate_is_deterministic(self):
        shape = gen.parse_shape("n16t4")
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a"), os.path.join(d, "b")
            gen.generate(a, shape)
            gen.generate(b, shape)
            names = sorted(os.listdir(a))
            self.assertEqual(names, sorted(os.listdir(b)))
            self.assertEqual(len(names), 2 * 16 + 4)  # .cu + .h each, common header, MODULE, BUILD, corpus.bzl
            for n in names:
                with open(os.path.join(a, n), "rb") as fa, open(os.path.join(b, n), "rb") as fb:
                    self.assertEqual(fa.read(), fb.read(), n)
            # nvcc_runs.py reads the same CORPUS (a literal) as the BUILD file's TARGETS cover.
            corpus = nvcc_runs.read_corpus(os.path.join(a, "corpus.bzl"))
            self.assertEqual(list(corpus), [gen.source_name(i) for i in range(16)])
            self.assertEqual({c["copts"][0] for c in corpus.values()}, {"-O3"})

    def test_corpus_and_build(self):
        files = gen.workspace_files(gen.parse_shape("n6t3"))
        env = _starlark_globals(files["corpus.bzl"])
        self.assertEqual(env["TARGETS"], {"lib00": ["k0000", "k0001"], "lib01": ["k0002", "k0003"],
                                          "lib02": ["k0004", "k0005"]})
        self.assertEqual(env["COPTS"], gen.COPTS)
        self.assertIn('name = "rules_cuda_stages_bench"', files["MODULE.bazel"])
        self.assertIn('load(":corpus.bzl", "COPTS", "TARGETS")', files["BUILD.bazel"])
        self.assertIn("shape n6t3: 6 sources in 3", files["BUILD.bazel"])
        only = gen.workspace_files(gen.parse_shape("n2"), sources_only=True)
        self.assertEqual(sorted(only), ["k0000.cu", "k0000.h", "k0001.cu", "k0001.h", "scaling_common.h"])


class CaseTest(unittest.TestCase):
    def test_parse(self):
        c = sl.parse_case("n200t10/1/3/staged+unstaged+nvcc")
        self.assertEqual((c.shape.sources, c.shape.targets, c.archs_key, c.reps), (200, 10, "1", 3))
        self.assertEqual(c.variants, ["staged", "unstaged", "nvcc"])
        self.assertFalse(c.scaleout)
        c = sl.parse_case("n1000/4/1/staged+unstaged+scaleout")
        self.assertTrue(c.scaleout)
        self.assertEqual(c.variants, ["staged", "unstaged"])

    def test_errors_say_what_is_accepted(self):
        for spec, words in (("n40/4/3", "SHAPE/ARCHS/REPS/VARIANTS"), ("n40/2/3/staged", "ARCHS is 4"),
                            ("n40/4/0/staged", "REPS"), ("n40/4/1/stagd", "known: staged+"),
                            ("n40/4/1/staged+scaleout", "staged+unstaged"), ("n7t2/4/1/staged", "divisor"),
                            ("n40/4/1/nvcc+nvcc", "twice"), ("n40/4/1/scaleout", "")):
            with self.assertRaises(sl.CaseError, msg=spec) as e:
                sl.parse_case(spec)
            self.assertIn(words, str(e.exception))
        with self.assertRaises(sl.CaseError):
            sl.parse_cases("n40/4/1/staged,n40/4/2/unstaged")  # the same shape and archs twice
        with self.assertRaises(sl.CaseError):
            sl.parse_cases(" , ")

    def test_presets_parse_and_fit(self):
        for name in sl.PRESETS:
            self.assertTrue(sl.parse_cases(name))
        quick = sum(sl.estimate_s(c) for c in sl.parse_cases("quick"))
        full = sum(sl.estimate_s(c) for c in sl.parse_cases("full"))
        self.assertLess(quick, 45 * 60)
        self.assertLess(quick, full)
        self.assertIn("total ~", sl.plan_text(sl.parse_cases("quick")))
        # The full run in two sittings of about an hour: the parts make up the whole.
        self.assertEqual(sl.PRESETS["full_small"] + sl.PRESETS["full_1000"], sl.PRESETS["full"])
        for part in ("full_small", "full_1000"):
            self.assertLess(sum(sl.estimate_s(c) for c in sl.parse_cases(part)), 70 * 60)

    def test_estimates_grow_with_the_sources(self):
        small = sl.estimate_s(sl.parse_case("n50/4/1/staged+unstaged"))
        big = sl.estimate_s(sl.parse_case("n1000/4/1/staged+unstaged"))
        self.assertGreater(big, 10 * small)
        self.assertGreater(sl.disk_gb(sl.parse_case("n1000/4/1/staged+unstaged+scaleout")),
                           sl.disk_gb(sl.parse_case("n1000/4/1/staged+unstaged")))

    def test_alternation(self):
        self.assertEqual(sl.rep_order(["a", "b", "c"], 1), ["a", "b", "c"])
        self.assertEqual(sl.rep_order(["a", "b", "c"], 2), ["c", "b", "a"])


class ParseTest(unittest.TestCase):
    def test_heap(self):
        self.assertEqual(sl.parse_heap_mb("43MB\n"), 43)
        self.assertEqual(sl.parse_heap_mb("used-heap-size-after-gc: 1234MB\n"), 1234)
        self.assertEqual(sl.parse_heap_mb("120GB"), 120000)
        self.assertEqual(sl.parse_heap_mb("9999KB"), 9.999)
        with self.assertRaises(ValueError):
            sl.parse_heap_mb("Starting local Bazel server")

    def test_analysis_from_phase_markers(self):
        # The markers of a Bazel 7.7.1 `build --nobuild` profile (times in microseconds).
        profile = {"traceEvents": [
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "Critical Path"}},
            {"cat": "build phase marker", "name": "Launch Blaze", "ph": "X", "ts": -9000, "dur": 9000},
            {"cat": "build phase marker", "name": "Initialize command", "ph": "i", "ts": 0},
            {"cat": "build phase marker", "name": "Evaluate target patterns", "ph": "i", "ts": 338846},
            {"cat": "general information", "name": "x", "ph": "X", "ts": 400000, "dur": 5},
            {"cat": "build phase marker", "name": "Load, analyze dependencies and build artifacts", "ph": "i", "ts": 354260},
            {"cat": "build phase marker", "name": "Complete build", "ph": "i", "ts": 2502297},
        ]}
        self.assertEqual(sl.analysis_s(profile), round((2502297 - 338846) / 1e6, 3))
        self.assertIsNone(sl.analysis_s({"traceEvents": []}))
        self.assertIsNone(sl.analysis_s({"traceEvents": profile["traceEvents"][:4]}))

    def test_stage_totals_from_cache_report(self):
        spawns = [
            Spawn("CudaPlan", ["b/_cuda/k/k/plan/k.sh"], False, "linux-sandbox", 0.5, "//:k"),
            Spawn("CudaCicc", ["b/_cuda/k/k/compute_80/k.ptx"], False, "linux-sandbox", 2.0, "//:k"),
            Spawn("CudaCicc", ["b/_cuda/k/k/compute_90/k.ptx"], False, "linux-sandbox", 1.5, "//:k"),
            Spawn("CudaPtxas", ["b/_cuda/k/k/compute_90/sm_90/k.cubin"], True, "disk cache hit", 0.0, "//:k"),
            Spawn("CppArchive", ["b/libk.a"], False, "linux-sandbox", 1.0, "//:k"),
        ]
        # The JSON that `cache_report --format=json --all_mnemonics` prints.
        rows = json.loads(cache_report_lib.format_rows(cache_report_lib.summarize(spawns, only_cuda=False), "json"))
        totals = sl.stage_totals(rows)
        self.assertEqual(totals["CudaCicc"], {"actions": 2, "executed": 2, "executed_s": 3.5})
        self.assertEqual(totals["CudaPtxas"], {"actions": 1, "executed": 0, "executed_s": 0.0})
        self.assertEqual(sl.count_actions(totals), 5)
        self.assertEqual(sl.count_actions(totals, executed=True), 4)
        self.assertAlmostEqual(sl.plan_share(totals), 0.5 / 5.0)
        self.assertIsNone(sl.plan_share({}))


def _run(shape, variant, rep, wall, cpu_actions=None, archs=ARCHS4, scenario="cold", **extra):
    sources, targets = gen.parse_shape(shape).sources, gen.parse_shape(shape).targets
    r = {"shape": shape, "sources": sources, "targets": targets, "archs": archs, "variant": variant,
         "scenario": scenario, "rep": rep, "wall_s": wall}
    if variant.startswith("bazel"):
        r.update({"cpu_actions_s": cpu_actions, "cpu_server_s": 0.1 * wall, "cpu_s": cpu_actions + 0.1 * wall})
    else:
        r["cpu_s"] = cpu_actions
    r.update(extra)
    return r


def _bazel_extra(n, plan_s, null_s=(0.5, 0.6, 0.7)):
    return {"analysis_s": 0.01 * n + 2, "heap_analysis_mb": n, "heap_build_mb": 2 * n, "log_mb": 1.9 * n,
            "stages": {"CudaPlan": {"actions": n, "executed": n, "executed_s": plan_s},
                       "CudaCicc": {"actions": 4 * n, "executed": 4 * n, "executed_s": 100.0 - plan_s}},
            "null_s": list(null_s),
            "edit": {"wall_s": 3.0, "stages": {"CudaCicc": {"actions": 4, "executed": 4, "executed_s": 1.0}}}}


class TablesTest(unittest.TestCase):
    def doc(self):
        runs = []
        for rep in (1, 2, 3):
            runs.append(_run("n40", "bazel_staged", rep, 35.0, 50.0, scenario="cold_nolog"))
            runs.append(_run("n40", "bazel_unstaged", rep, 25.0 + rep, 48.0, scenario="cold_nolog"))
            runs.append(_run("n40", "bazel_staged", rep, 36.0, 50.0, **_bazel_extra(40, 1.0)))
            runs.append(_run("n40", "bazel_unstaged", rep, 35.0, 48.0, **_bazel_extra(40, 0.0)))
        for shape, n, per, plan in (("n50", 50, 0.9, 3.0), ("n1000", 1000, 1.08, 4.0), ("n200", 200, 0.95, 2.5)):
            runs.append(_run(shape, "bazel_staged", 1, per * n, 1.5 * n, **_bazel_extra(n, plan, (1.5, 1.9, 2.5))))
            runs.append(_run(shape, "bazel_unstaged", 1, 0.64 * n, 1.2 * n, **_bazel_extra(n, 0.0)))
        runs.append(_run("n200", "nvcc_t0", 1, 130.0, 250.0))
        runs.append(_run("n40", "runner", 1, 30.0, 62.5))
        runs.append(_run("n200t10", "bazel_staged", 1, 150.0, 300.0, **_bazel_extra(200, 2.0)))
        runs.append(_run("n50", "bazel_staged", 1, 20.0, 30.0, archs=ARCHS1, **_bazel_extra(50, 10.0)))
        return {"machine": {"name": "t", "cores": 2, "cases": ["n40/4/3/staged"]}, "runs": runs}

    def test_targets(self):
        doc = self.doc()
        text = sl.targets_table(doc["runs"], ARCHS4, ARCHS1)
        lines = text.splitlines()
        # 40 files: staged 35 s vs unstaged 26/27/28 s without the log; 36 vs 35 s with it.
        self.assertIn("| n40, without the execution log (as a user builds) | 1.30x (1.25–1.35) | **not met** |", text)
        self.assertIn("| n40, with the execution log | 1.03x (1.03–1.03) | met |", text)
        self.assertIn("bench/run (the corpus benchmark) | not in these results", text)
        # CudaPlan: at most 4 s of 100 s at 4 archs (n1000), 10 % at 1 arch.
        self.assertIn("worst (n1000) | 4.0 % | **not met** |", text)
        self.assertIn("staged cold builds, sm_90: worst (n50) | 10.0 % | **not met** |", text)
        # Null builds of n1000: staged median of 1.5/1.9/2.5 = 1.9 s; unstaged 0.6 s.
        self.assertIn("| Bazel, staged, %s, median of 3 | 1.90 s | met |" % ARCHS4, text)
        self.assertIn("| Bazel, staged=false, %s, median of 3 | 0.60 s | met |" % ARCHS4, text)
        # Wall per source 1.08 / 0.9 = 1.20x: not flat.
        self.assertIn("n1000 ÷ n50 | 1.20x | **not met** |", text)
        self.assertEqual(sum(1 for line in lines if line.startswith("| staged ≤ 1.10x")), 1)  # the target named once

    def test_targets_with_the_corpus(self):
        corpus = {"runs": [
            {"variant": "bazel_staged", "archs": ARCHS4, "rep": r, "wall_s": w} for r, w in ((1, 100.0), (2, 110.0))
        ] + [{"variant": "nvcc_t0", "archs": ARCHS4, "rep": r, "wall_s": w} for r, w in ((1, 100.0), (2, 100.0))]}
        text = sl.targets_table(self.doc()["runs"], ARCHS4, ARCHS1, corpus)
        self.assertIn("bench/run's corpus results | 1.05x (1.00–1.10) | **not met** |", text)

    def test_cold_table_uses_nvcc_runs_of_the_same_files(self):
        text = sl.cold_table(self.doc()["runs"], ARCHS4)
        row = [line for line in text.splitlines() if line.startswith("| n200t10") and "nvcc" in line]
        self.assertEqual(len(row), 1)
        self.assertIn("nvcc -t 0 per file (n200's runs: the same files)", row[0])
        self.assertIn("| 1.15x | 1.20x |", row[0])  # staged 150 s / 130 s, 300 / 250 s CPU
        self.assertIn("| n40 (40 in 40) | Bazel, staged=false, no execution log | 3 | 27.0 s (26.0–28.0 s) |", text)
        # The stages without Bazel: staged (with the log) 36 s / 30 s, 50 / 62.5 s CPU.
        row = [line for line in text.splitlines() if line.startswith("| n40") and "without Bazel" in line]
        self.assertEqual(len(row), 1, text)
        self.assertIn("| 1.20x | 0.80x |", row[0])

    def test_flatness(self):
        text = sl.flatness_table(self.doc()["runs"], ARCHS4)
        self.assertIn("| build | n40 | n50 | n200 | n1000 | largest ÷ smallest |", text)
        # Wall per source: n40 36 s, n50 45 s, n200 190 s, n1000 1080 s; the last ÷ the first.
        self.assertIn("| Bazel, staged | 900 ms | 900 ms | 950 ms | 1080 ms | 1.20x |", text)

    def test_bazel_table_and_report(self):
        doc = self.doc()
        text = sl.bazel_table(doc["runs"], ARCHS4)
        row = [line for line in text.splitlines() if line.startswith("| n1000") and "| Bazel, staged |" in line][0]
        self.assertIn("| 12.0 s | 12 ms | 1000 MB | 2000 MB | 5000 (5.0 per source) | 1.90 s | 3.00 s, 4 actions | 4.0 % | 1900 MB |",
                      row)
        report = sl.tables(doc, ARCHS4, ARCHS1)
        self.assertIn("### Cold builds, sm_90", report)
        self.assertNotIn("Scale-out", report)

    def test_costs_summary(self):
        text = sl.costs_summary(self.doc()["runs"], ARCHS4, ARCHS1)
        # 40 files without the log: staged 35 s, staged=false median 27 s: 200 ms more per source.
        self.assertIn("- **Cold, 40 files, 4 archs, without the execution log:** staged 35.0 s against staged=false "
                      "27.0 s (1.30x), 200 ms more per source.", text)
        # The largest shape with one target per source at 4 archs is n1000.
        self.assertIn("- **CudaPlan (n1000, 4 archs):** 4 ms of action time per source, 4.0 % of all action time.", text)
        self.assertIn("- **Actions (n1000, 4 archs):** 5.0 per source staged, 5.0 staged=false", text)
        self.assertIn("null 1.90 s staged against 0.60 s; one-file edit 3.00 s against 3.00 s.", text)
        self.assertIn("- **Growth (4 archs):** staged wall per source 900 ms at 50 sources, 1080 ms at 1000 (1.20x).", text)
        self.assertIn("(n50, 1 arch)", text)  # the largest 1-arch shape here
        self.assertEqual(sl.costs_summary([], ARCHS4, ARCHS1), "")

    def test_scaleout_table_from_the_tool(self):
        # The real tool's JSON (scaleout_lib.format_curves) of a tiny staged and unstaged build.
        staged = [
            Spawn("CudaPlan", ["o/plan"], False, "linux-sandbox", 1.0, "//:a", inputs=["a.cu"]),
            Spawn("CudaCicc", ["o/a80.ptx"], False, "linux-sandbox", 2.0, "//:a", inputs=["o/plan"]),
            Spawn("CudaCicc", ["o/a90.ptx"], False, "linux-sandbox", 2.0, "//:a", inputs=["o/plan"]),
            Spawn("CudaHostCompile", ["o/a.o"], False, "linux-sandbox", 1.0, "//:a", inputs=["o/a80.ptx", "o/a90.ptx"]),
        ]
        unstaged = [Spawn("CudaCompile", ["o/a.o"], False, "linux-sandbox", 5.0, "//:a", inputs=["a.cu"])]
        curves = json.loads(scaleout_lib.format_curves(
            [scaleout_lib.curve("staged", staged, (1, 2, 4)), scaleout_lib.curve("staged=false", unstaged, (1, 2, 4))],
            "json"))
        text = sl.scaleout_table(curves)
        self.assertIn("| 1 | 6.00 s | 1.00x | 5.00 s | 1.00x | 1.20x |", text)
        self.assertIn("| 2 | 4.00 s | 1.50x | 5.00 s | 1.00x | 0.80x |", text)
        self.assertIn("- staged: 4 actions, 6.00 s of work, longest chain 4.00 s; flat", text)
        self.assertIn("Longest chain: CudaPlan 1.00 s → CudaCicc", text)
        self.assertEqual(sl.scaleout_table(None), "(not run)")

    def test_arch_labels(self):
        self.assertEqual(sl.archs_label(ARCHS4), "4 archs")
        self.assertEqual(sl.archs_label(ARCHS1), "1 arch")


if __name__ == "__main__":
    unittest.main()
