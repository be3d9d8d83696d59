"""lock.py reads the tables it writes, and its pin parsing (no network)."""

import unittest

import lock


class LockTest(unittest.TestCase):
    def test_tables_agree(self):
        components = lock.read_components()
        self.assertIn("cublas", components)
        versions = lock.read_table()
        libraries = lock.read_libraries_table()
        self.assertEqual(sorted(versions), sorted(libraries))
        for version, entry in libraries.items():
            self.assertEqual(sorted(components), sorted(entry["components"]), version)
            for name, c in entry["components"].items():
                package = components[name]["package"].format(major=version.split(".")[0])
                self.assertEqual(package, c["package"])
                for platform, archives in c["archives"].items():
                    for a in archives:
                        self.assertEqual(a["strip_prefix"], components[name]["strip_prefix"].format(major=version.split(".")[0]))
                        self.assertTrue(a["filename"].startswith(package.replace("-", "_") + "-" + c["version"] + "-"), a["filename"])

    def test_parse_pins(self):
        metadata = "\n".join([
            "Name: cuda-toolkit",
            'Requires-Dist: nvidia-cublas==13.1.1.3.*; (sys_platform == "linux") and extra == "all"',
            'Requires-Dist: nvidia-nvjitlink<14; extra == "all"',
            "Requires-Dist: nvidia-cuda-nvcc==13.0.88.*",
        ])
        self.assertEqual(lock.parse_pins(metadata), {"nvidia-cublas": "13.1.1.3", "nvidia-cuda-nvcc": "13.0.88"})


if __name__ == "__main__":
    unittest.main()
