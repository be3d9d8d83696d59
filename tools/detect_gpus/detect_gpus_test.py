"""detect_gpus: compute capabilities to archs, nvidia-smi's output, the driver's errors, and a real run."""

import ctypes
import json
import os
import subprocess
import sys
import unittest

from tools.detect_gpus import detect_gpus as d


class ArchsTest(unittest.TestCase):
    def test_one_sm_per_distinct_gpu_in_arch_order(self):
        self.assertEqual(d.archs_from_capabilities([(9, 0), (8, 6), (9, 0)]), ["sm_86", "sm_90"])

    def test_two_digit_major(self):
        self.assertEqual(d.archs_from_capabilities([(12, 0), (10, 0), (8, 9)]), ["sm_89", "sm_100", "sm_120"])

    def test_no_device(self):
        with self.assertRaisesRegex(d.NotFound, "no CUDA device"):
            d.archs_from_capabilities([])

    def test_gpus_too_old_are_left_out_and_named(self):
        self.assertEqual(d.archs_from_capabilities([(3, 5), (7, 5)]), ["sm_75"])
        with self.assertRaisesRegex(d.NotFound, "older than compute capability 5.0: 3.0, 3.5"):
            d.archs_from_capabilities([(3, 5), (3, 0)])


class NvidiaSmiTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(d.parse_compute_caps("9.0\n8.6\n\n"), [(9, 0), (8, 6)])
        self.assertEqual(d.parse_compute_caps(" 12.0 \n"), [(12, 0)])

    def test_parse_rejects_other_output(self):
        with self.assertRaisesRegex(d.NotFound, "not a compute capability"):
            d.parse_compute_caps("[N/A]\n")

    def test_failure_is_a_reason(self):
        def run(argv, **kwargs):
            self.assertEqual(argv, ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"])
            return subprocess.CompletedProcess(argv, 9, "", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n")
        with self.assertRaisesRegex(d.NotFound, r"exit status 9\): NVIDIA-SMI has failed"):
            d.query_nvidia_smi(run)

    def test_missing_is_a_reason(self):
        def run(argv, **kwargs):
            raise FileNotFoundError(argv[0])
        with self.assertRaisesRegex(d.NotFound, "nvidia-smi is not on PATH"):
            d.query_nvidia_smi(run)


class DriverTest(unittest.TestCase):
    def test_no_library(self):
        def load(name):
            raise OSError("%s: cannot open shared object file" % name)
        with self.assertRaisesRegex(d.NotFound, "no NVIDIA driver: libcuda.so.1 could not be loaded"):
            d.query_driver(load)

    def test_error_texts(self):
        self.assertIn("no CUDA device", d.driver_error(d.CUDA_ERROR_NO_DEVICE))
        self.assertIn("older than its CUDA library", d.driver_error(d.CUDA_ERROR_INSUFFICIENT_DRIVER))
        self.assertEqual(d.driver_error(999, "CUDA_ERROR_UNKNOWN"), "the CUDA driver returned error 999 (CUDA_ERROR_UNKNOWN)")


class DetectTest(unittest.TestCase):
    def test_first_source_that_finds_gpus_wins_and_earlier_reasons_are_kept(self):
        def none():
            raise d.NotFound("no NVIDIA driver")
        result = d.detect([("driver", none), ("nvidia-smi", lambda: [(9, 0)])])
        self.assertEqual(result, {"archs": ["sm_90"], "source": "nvidia-smi", "reasons": ["driver: no NVIDIA driver"]})

    def test_nothing_found(self):
        def broken():
            raise ValueError("odd")
        result = d.detect([("driver", broken)])
        self.assertEqual(result, {"archs": [], "source": "", "reasons": ["driver: ValueError: odd"]})

    def test_this_machine(self):
        # The script as the repository rule runs it: one JSON object; either
        # GPUs were found, or every source says why not.
        proc = subprocess.run([sys.executable, d.__file__], stdout=subprocess.PIPE, text=True, check=True)
        result = json.loads(proc.stdout)
        self.assertEqual(sorted(result), ["archs", "reasons", "source"])
        if result["archs"]:
            self.assertIn(result["source"], ("driver", "nvidia-smi"))
            self.assertTrue(all(a.startswith("sm_") for a in result["archs"]))
        else:
            self.assertEqual(len(result["reasons"]), 2, result)
            have_driver = True
            try:
                ctypes.CDLL("libcuda.so.1")
            except OSError:
                have_driver = False
            if not have_driver:
                self.assertIn("libcuda.so.1 could not be loaded", result["reasons"][0])


if __name__ == "__main__":
    unittest.main()
