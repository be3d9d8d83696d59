"""split_report's floor from nvcc --time rows, and its ratios."""

import os
import tempfile
import unittest

from bench.compile_bench import split_report

_HEADER = "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n"


def _row(phase, arch, ms, inputs=""):
    return "k.cu , %s , %s , out , %s , nvcc , %.4f , ms\n" % (phase, inputs, arch, ms)


class SplitReportTest(unittest.TestCase):
    def _csv(self, blocks):
        fd, path = tempfile.mkstemp(suffix=".csv", dir=os.environ.get("TEST_TMPDIR"))
        with os.fdopen(fd, "w") as f:
            for rows in blocks:
                f.write(_HEADER)
                f.writelines(rows)
                f.write(" , nvcc (driver) ,  , k.o ,  , nvcc , 0.1 , ms\n")
        return path

    def test_floor_is_the_longer_chain_plus_fatbinary(self):
        rows = [
            _row("gcc (preprocessing 4)", "", 1000),
            _row("gcc (preprocessing 1)", "compute_80", 900),
            _row("gcc (preprocessing 1)", "compute_90", 950),
            _row("cudafe++", "compute_90", 3000),
            _row("cicc", "compute_80", 9000),
            _row("cicc", "compute_90", 12000),
            _row("ptxas", "sm_80", 500, "/tmp/x.compute_80.ptx"),
            _row("ptxas", "sm_86", 700, "/tmp/x.compute_80.ptx"),
            _row("ptxas", "sm_90", 400, "/tmp/x.compute_90.ptx"),
            _row("fatbinary", "", 100),
            _row("gcc (compiling)", "compute_90", 4000),
        ]
        blocks = split_report.read_time_csv(self._csv([rows, rows]))
        self.assertEqual(len(blocks), 2)
        floor, host, device, arch = split_report.floor_s(blocks[0])
        self.assertAlmostEqual(host, 8.0)  # 1 + 3 + 4
        self.assertAlmostEqual(device, 13.35)  # compute_90: 0.95 + 12 + 0.4 (compute_80: 0.9 + 9 + 0.7)
        self.assertEqual(arch, "compute_90")
        self.assertAlmostEqual(floor, 13.45)

    def test_host_bound_file(self):
        rows = [
            _row("gcc (preprocessing 4)", "", 2000),
            _row("gcc (preprocessing 1)", "compute_80", 500),
            _row("cudafe++", "compute_80", 3000),
            _row("cicc", "compute_80", 1000),
            _row("ptxas", "sm_80", 100, "x.compute_80.ptx"),
            _row("fatbinary", "", 50),
            _row("gcc (compiling)", "compute_80", 3000),
        ]
        floor, host, _, _ = split_report.floor_s(split_report.read_time_csv(self._csv([rows]))[0])
        self.assertAlmostEqual(host, 8.0)
        self.assertAlmostEqual(floor, 8.05)

    def test_report_ratios(self):
        d = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        rows = [_row("gcc (preprocessing 4)", "", 1000), _row("cudafe++", "compute_80", 1000),
                _row("gcc (compiling)", "compute_80", 2000), _row("fatbinary", "", 0)]
        os.rename(self._csv([rows]), os.path.join(d, "k.csv"))

        def run(variant, wall, cpu, frontend=None):
            rec = {"critical_path_s": wall, "critical_path": "plan -> preprocess"}
            if frontend is not None:
                rec["stages"] = [["plan", "CudaPlan", "", "0.000", "0.010", "0.010", "0.010"],
                                 ["frontend", "CudaFrontend", "", "1.000", "%.3f" % (1 + frontend), "%.3f" % frontend,
                                  "%.3f" % (2 * frontend)]]
            return {"ok": True, "scope": "file", "file": "k", "variant": variant, "wall_s": wall, "cpu_s": cpu,
                    "files": {"k": rec}}

        # Without the runner's stage times: the floor from nvcc's phases alone.
        text = split_report.report([run("nvcc_t0", 10.0, 20.0), run("nvcc_t0_split0", 8.0, 20.0),
                                    run("runner_split", 6.0, 21.0)], d)
        self.assertIn("| k | 10.00 | 8.00 | 6.00 | 4.00 (4.00 / 0.00 ) | 0.75 | 1.50 | - | - | 0.50 | 1.05 |", text)
        self.assertIn("mean over 1 files: **0.75x**", text)
        self.assertNotIn("with the stub's front end: mean", text)

        # The stub's front end beside cudafe++ took 2.5 s and 1.5 s (mean 2 s, longer than cudafe++'s 1 s):
        # the host chain is 1 + 2 + 2 = 5 s.
        text = split_report.report([run("nvcc_t0", 10.0, 20.0), run("nvcc_t0_split0", 8.0, 20.0),
                                    run("runner_split", 6.0, 21.0, frontend=2.5),
                                    run("runner_split", 6.0, 21.0, frontend=1.5)], d)
        self.assertIn("| k | 10.00 | 8.00 | 6.00 | 4.00 (4.00 / 0.00 ) | 0.75 | 1.50 | 5.00 | 1.20 | 0.62 | 1.05 |", text)
        self.assertIn("with the stub's front end: mean 1.20x, worst 1.20x, 0 of 1 files within 1.10x", text)
        self.assertIn("mean 0.62x over 1 files", text)

        # Shorter than nvcc's cudafe++: the floor stays nvcc's.
        text = split_report.report([run("nvcc_t0_split0", 8.0, 20.0), run("runner_split", 6.0, 21.0, frontend=0.5)], d)
        self.assertIn("| 4.00 | 1.50 | 0.50 |", text)


if __name__ == "__main__":
    unittest.main()
