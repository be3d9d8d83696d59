"""cache_report_lib on logs in Bazel 7's JSON execution-log format."""

import json
import os
import tempfile
import unittest

from tools.cache_report import cache_report_lib as lib
from tools.cache_report import execlog_pb2

BASE = "bazel-out/k8-fastbuild/bin/pkg/_cuda/t/k/"


def spawn(mnemonic, outputs, hit, wall="1.5s", runner=None, inputs=()):
    return {
        "inputs": [{"path": BASE + i} for i in inputs],
        "commandArgs": ["/bin/sh", "x.sh"],
        "mnemonic": mnemonic,
        "listedOutputs": [BASE + o for o in outputs],
        "cacheHit": hit,
        "runner": runner or ("disk cache hit" if hit else "linux-sandbox"),
        "metrics": {"executionWallTime": wall},
        "targetLabel": "//pkg:t",
    }


def write(entries, raw=None):
    fd, path = tempfile.mkstemp(dir=os.environ.get("TEST_TMPDIR"))
    with os.fdopen(fd, "w") as f:
        f.write(raw if raw is not None else "\n".join(json.dumps(e, indent=2) for e in entries))
    return path


def write_binary(entries, cut=0):
    out = b""
    for e in entries:
        msg = execlog_pb2.SpawnExec(
            command_args=e["commandArgs"],
            listed_outputs=e["listedOutputs"],
            mnemonic=e["mnemonic"],
            runner=e["runner"],
            cache_hit=e["cacheHit"],
            target_label=e["targetLabel"],
        )
        msg.digest.hash = "ab" * 32
        for i in e["inputs"]:
            f = msg.inputs.add(path=i["path"])
            f.digest.size_bytes = int((i.get("digest") or {}).get("sizeBytes", 0))
        for o in e.get("actualOutputs", []):
            f = msg.actual_outputs.add(path=o["path"])
            f.digest.size_bytes = int(o["digest"]["sizeBytes"])
        msg.metrics.execution_wall_time.FromNanoseconds(int(float(e["metrics"]["executionWallTime"][:-1]) * 1e9))
        body = msg.SerializeToString()
        size = len(body)
        prefix = b""
        while True:
            byte = size & 0x7F
            size >>= 7
            prefix += bytes([byte | (0x80 if size else 0)])
            if not size:
                break
        out += prefix + body
    fd, path = tempfile.mkstemp(dir=os.environ.get("TEST_TMPDIR"))
    with os.fdopen(fd, "wb") as f:
        f.write(out[: len(out) - cut])
    return path


class CacheReportTest(unittest.TestCase):
    def test_stage_and_arch_from_outputs(self):
        spawns = lib.read_json_log(write([
            spawn("CudaCicc", ["compute_90/k.ptx", "compute_90/k.cudafe1.c"], True),
            spawn("CudaPtxas", ["compute_80/sm_86/k.cubin"], False, "0.25s"),
            spawn("CudaFrontend", ["k.cudafe1.cpp"], False),
            spawn("CppLink", ["libt.a"], False),
        ]))
        self.assertEqual([(s.mnemonic, s.arch) for s in spawns],
                         [("CudaCicc", "compute_90"), ("CudaPtxas", "sm_86"), ("CudaFrontend", "-"), ("CppLink", "-")])
        rows = lib.summarize(spawns)
        self.assertEqual([(r.stage, r.arch, r.actions, r.cache_hits, r.disk_hits, r.remote_hits, r.executed) for r in rows],
                         [("CudaFrontend", "-", 1, 0, 0, 0, 1), ("CudaCicc", "compute_90", 1, 1, 1, 0, 0),
                          ("CudaPtxas", "sm_86", 1, 0, 0, 0, 1)])
        self.assertAlmostEqual(rows[2].executed_s, 0.25)

    def test_saved_time_and_device_fraction_use_the_baseline(self):
        cold = lib.read_json_log(write([
            spawn("CudaCicc", ["compute_90/k.ptx"], False, "2.0s"),
            spawn("CudaPtxas", ["compute_90/sm_90/k.cubin"], False, "1.0s"),
        ]))
        warm = lib.read_json_log(write([
            spawn("CudaCicc", ["compute_90/k.ptx"], True, "0.01s"),
            spawn("CudaPtxas", ["compute_90/sm_90/k.cubin"], False, "1.0s"),
        ]))
        rows = lib.summarize(warm, baseline=cold)
        self.assertAlmostEqual(sum(r.saved_s for r in rows), 2.0)
        self.assertAlmostEqual(lib.device_fraction_from_cache(rows), 2.0 / 3.0)

    def test_headline_counts_exactly_the_stages_it_names(self):
        # A developer's build: every compile device stage from the cache, the device link run.
        cold = lib.read_json_log(write([
            spawn("CudaCicc", ["compute_90/k.ptx"], False, "2.0s"),
            spawn("CudaPtxas", ["compute_90/sm_90/k.cubin"], False, "1.0s"),
            spawn("CudaDeviceLink", ["_cuda_dlink/t/sm_90/t.cubin"], False, "1.0s"),
        ]))
        warm = lib.read_json_log(write([
            spawn("CudaCicc", ["compute_90/k.ptx"], True),
            spawn("CudaPtxas", ["compute_90/sm_90/k.cubin"], True),
            spawn("CudaDeviceLink", ["_cuda_dlink/t/sm_90/t.cubin"], False, "1.0s"),
        ]))
        rows = lib.summarize(warm, baseline=cold)
        self.assertEqual(lib.DEVICE_STAGES, ["CudaCicc", "CudaPtxas", "CudaClangDevice"])
        self.assertEqual(lib.DEVICE_LINK_STAGES, ["CudaDeviceLink"])
        self.assertEqual(lib.device_fraction_from_cache(rows), 1.0)
        self.assertEqual(
            lib.headline(rows).splitlines(),
            ["device stages (CudaCicc, CudaPtxas): 100.0 % of their time served from cache "
             "(2 of 2 actions cache hits)",
             "device links (CudaDeviceLink): 0.0 % of their time served from cache (0 of 1 actions cache hits)"])
        # A build without device links has no such line.
        rows = lib.summarize(warm[:2], baseline=cold)
        self.assertEqual(len(lib.headline(rows).splitlines()), 1)
        # A clang build (compiler=clang) names and counts its own device stages.
        clang = lib.read_json_log(write([
            spawn("CudaClangDevice", ["compute_90/k.ptx"], True),
            spawn("CudaPtxas", ["compute_90/sm_90/k.cubin"], False, "1.0s"),
        ]))
        self.assertEqual(
            lib.headline(lib.summarize(clang)).splitlines(),
            ["device stages (CudaPtxas, CudaClangDevice): 0.0 % of their time served from cache "
             "(1 of 2 actions cache hits)"])

    def test_binary_log_reads_like_the_json_one(self):
        entries = [
            spawn("CudaCicc", ["compute_90/k.ptx"], True, "0.01s"),
            spawn("CudaPtxas", ["compute_80/sm_86/k.cubin"], False, "0.25s"),
        ]
        binary = lib.read_log(write_binary(entries))
        json_ = lib.read_log(write(entries))
        self.assertEqual([(s.mnemonic, s.arch, s.cache_hit, s.runner, s.wall_s) for s in binary],
                         [(s.mnemonic, s.arch, s.cache_hit, s.runner, s.wall_s) for s in json_])
        self.assertEqual(binary[0].digest, "ab" * 32)

    def test_truncated_binary_log_is_a_clear_error(self):
        entries = [spawn("CudaCicc", ["compute_90/k.ptx"], True)] * 3
        with self.assertRaisesRegex(lib.LogError, "not a complete binary execution log"):
            lib.read_log(write_binary(entries, cut=5))

    def test_stage_graph_links_actions_by_files(self):
        spawns = lib.read_log(write([
            spawn("CudaPreprocess", ["compute_90/k.cpp1.ii"], False),
            spawn("CudaCicc", ["compute_90/k.ptx"], True, inputs=["compute_90/k.cpp1.ii"]),
            spawn("CudaPtxas", ["compute_90/sm_90/k.cubin"], False, inputs=["compute_90/k.ptx"]),
        ]))
        dot = lib.stage_graph(spawns, "//pkg:t")
        self.assertIn('a0 -> a1 [label="k.cpp1.ii"]', dot)
        self.assertIn('a1 -> a2 [label="k.ptx"]', dot)
        self.assertIn("fillcolor=palegreen", dot)  # the cache hit
        with self.assertRaisesRegex(lib.LogError, "no CUDA stage actions of //other:x"):
            lib.stage_graph(spawns, "//other:x")

    def test_remote_and_disk_hits_are_told_apart(self):
        rows = lib.summarize(lib.read_log(write([
            spawn("CudaCicc", ["compute_90/k.ptx"], True, runner="remote cache hit"),
            spawn("CudaCicc", ["compute_90/j.ptx"], True, runner="disk cache hit"),
        ])))
        self.assertEqual((rows[0].cache_hits, rows[0].remote_hits, rows[0].disk_hits), (2, 1, 1))

    def test_formats(self):
        rows = lib.summarize(lib.read_json_log(write([spawn("CudaCicc", ["compute_90/k.ptx"], True)])))
        self.assertIn("CudaCicc", lib.format_rows(rows, "table"))
        self.assertTrue(lib.format_rows(rows, "csv").startswith("stage,arch,actions"))
        self.assertEqual(json.loads(lib.format_rows(rows, "json"))[0]["cache_hits"], 1)

    def test_truncated_log_is_a_clear_error(self):
        text = json.dumps(spawn("CudaCicc", ["compute_90/k.ptx"], True), indent=2)
        with self.assertRaisesRegex(lib.LogError, "not a complete JSON execution log"):
            lib.read_json_log(write(None, raw=text + "\n" + text[: len(text) // 2]))

    def test_foreign_files_are_clear_errors(self):
        with self.assertRaisesRegex(lib.LogError, "not a SpawnExec"):
            lib.read_json_log(write(None, raw='{"hello": 1}'))
        path = write(None, raw="")
        with open(path, "wb") as f:
            f.write(b"\x8a\x01\xff\xfe binary")
        with self.assertRaisesRegex(lib.LogError, "binary"):
            lib.read_json_log(path)
        with self.assertRaisesRegex(lib.LogError, "not a (complete binary execution log|SpawnExec)"):
            lib.read_log(path)


    def test_inputs_table_counts_declared_inputs_bytes_and_roots(self):
        toolkit = ["external/cuda_13_0/include/h%d.h" % i for i in range(5)]

        def with_files(entry, inputs, sizes, outputs):
            entry["inputs"] = [{"path": p, "digest": {"hash": "0" * 64, "sizeBytes": str(n)}} for p, n in zip(inputs, sizes)]
            entry["actualOutputs"] = [{"path": BASE + p, "digest": {"hash": "1" * 64, "sizeBytes": str(n)}}
                                      for p, n in outputs]
            return entry

        entries = [
            # Two preprocesses: 5 toolkit headers and the source; one more header in the second.
            with_files(spawn("CudaPreprocess", ["a.cpp4.ii"], False), toolkit + ["pkg/a.cu"],
                       [1000] * 5 + [500], [("a.cpp4.ii", 4000)]),
            with_files(spawn("CudaPreprocess", ["b.cpp4.ii"], True), toolkit + ["pkg/b.cu", "pkg/b.h"],
                       [1000] * 7, [("b.cpp4.ii", 6000)]),
            # cicc: the preprocessed file only (a stage output) and its binary.
            with_files(spawn("CudaCicc", ["compute_90/a.ptx"], False),
                       [BASE + "compute_90/a.cpp1.ii", "external/cuda_13_0/nvvm/bin/cicc"], [4000, 2000000],
                       [("compute_90/a.ptx", 300)]),
            spawn("CppCompile", [], False),
        ]
        for log in (write(entries), write_binary(entries)):
            rows = lib.inputs_table(lib.read_log(log))
            self.assertEqual([(r.stage, r.arch, r.actions) for r in rows],
                             [("CudaPreprocess", "-", 2), ("CudaCicc", "compute_90", 1)])
            pre, cicc = rows
            self.assertEqual((pre.input_files, pre.input_files_max), (7, 7))  # the upper median of 6 and 7
            self.assertAlmostEqual(pre.input_mb, 0.007)
            self.assertEqual((pre.output_files, pre.output_kb), (1, 6.0))
            self.assertEqual(pre.roots[0], ("external/cuda_13_0/include", 5))
            self.assertIn(("pkg", 2), pre.roots)
            self.assertEqual(cicc.roots, [("bazel-out/.../_cuda* (stage files)", 1), ("external/cuda_13_0/nvvm", 1)])
            text = lib.format_inputs_table(rows)
            self.assertIn("external/cuda_13_0/include 5", text)
            self.assertTrue(lib.format_inputs_table(rows, "csv").startswith("stage,arch,actions,input files"))
            self.assertEqual(json.loads(lib.format_inputs_table(rows, "json"))[1]["stage"], "CudaCicc")
        self.assertEqual([r.stage for r in lib.inputs_table(lib.read_log(write(entries)), only_cuda=False)][-1],
                         "CppCompile")


if __name__ == "__main__":
    unittest.main()
