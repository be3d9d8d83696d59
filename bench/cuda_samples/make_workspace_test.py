"""make_workspace on a small tree shaped like NVIDIA's cuda-samples."""

import os
import tempfile
import unittest

from bench.cuda_samples import make_workspace


def _write(root, path, text=""):
    path = os.path.join(root, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class MakeWorkspaceTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.samples = os.path.join(self.tmp, "cuda-samples")
        _write(self.samples, "Common/helper_cuda.h")
        _write(self.samples, "Common/data/big.ppm", "not a source")
        _write(self.samples, "Samples/0_Introduction/vectorAdd/vectorAdd.cu")
        _write(self.samples, "Samples/2_Concepts_and_Techniques/scan/scan.cu")
        _write(self.samples, "Samples/2_Concepts_and_Techniques/scan/main.cpp")
        _write(self.samples, "Samples/2_Concepts_and_Techniques/scan/scan_common.h")
        _write(self.samples, "Samples/2_Concepts_and_Techniques/scan/README.md")
        self.list = os.path.join(self.tmp, "list.txt")
        _write(self.tmp, "list.txt", "# a comment\n"
               "Samples/0_Introduction/vectorAdd/vectorAdd.cu -O3 -I Common\n"
               "Samples/2_Concepts_and_Techniques/scan/scan.cu -O3\n"
               "Samples/2_Concepts_and_Techniques/scan/scan.cu -O2\n")
        self.out = os.path.join(self.tmp, "ws")
        # A checkout of rules_cuda_stages: what the workspace takes from it.
        self.repo = os.path.join(self.tmp, "rules_cuda_stages")
        _write(self.repo, "tools/bazelw", "#!/bin/sh\n")
        os.chmod(os.path.join(self.repo, "tools/bazelw"), 0o755)
        _write(self.repo, "tools/offline/offline.bazelrc", "common:offline --noenable_workspace\n")

    def read(self, path):
        with open(os.path.join(self.out, path)) as f:
            return f.read()

    def test_one_package_per_sample_directory(self):
        dirs = make_workspace.sample_dirs(self.list)
        self.assertEqual(dirs, ["Samples/0_Introduction/vectorAdd", "Samples/2_Concepts_and_Techniques/scan"])
        labels = make_workspace.make_workspace(self.samples, self.out, dirs, repo=self.repo)
        self.assertEqual(labels, ["//Samples/0_Introduction/vectorAdd:vectorAdd", "//Samples/2_Concepts_and_Techniques/scan:scan"])
        scan = self.read("Samples/2_Concepts_and_Techniques/scan/BUILD.bazel")
        self.assertIn('name = "scan"', scan)
        self.assertIn('srcs = ["main.cpp", "scan.cu"]', scan)
        self.assertIn('hdrs = ["scan_common.h"]', scan)
        self.assertIn('deps = ["//Common:helpers"]', scan)
        # Sources only: no README, no data.
        self.assertFalse(os.path.exists(os.path.join(self.out, "Samples/2_Concepts_and_Techniques/scan/README.md")))
        self.assertFalse(os.path.exists(os.path.join(self.out, "Common/data")))
        self.assertIn("cc_library(", self.read("Common/BUILD.bazel"))
        self.assertIn('path = "%s"' % self.repo, self.read("MODULE.bazel"))
        self.assertIn("import %workspace%/tools/offline/offline.bazelrc", self.read(".bazelrc"))
        self.assertTrue(os.access(os.path.join(self.out, "tools", "bazelw"), os.X_OK))
        # Written again over itself: the same.
        make_workspace.make_workspace(self.samples, self.out, dirs, repo=self.repo)
        self.assertEqual(scan, self.read("Samples/2_Concepts_and_Techniques/scan/BUILD.bazel"))

    def test_not_a_samples_checkout(self):
        with self.assertRaises(SystemExit) as e:
            make_workspace.make_workspace(self.tmp, self.out, [], repo=self.repo)
        self.assertIn("no Common/", str(e.exception))


if __name__ == "__main__":
    unittest.main()
