"""stage_reads_lib: strace's lines, and the opened files matched to the declared ones in a real directory."""

import os
import tempfile
import unittest

from bench.stage_inputs import stage_reads_lib as lib

TRACE = """\
1234  execve("/usr/bin/sh", ["sh", "plan/k.sh"], 0x7ffd /* 12 vars */) = 0
1234  openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3
1235  execve("external/cuda/bin/cicc", ["cicc"], 0x7ffd /* 12 vars */) = 0
1235  openat(AT_FDCWD, "bazel-out/k8/bin/pkg/_cuda/k/compute_90/k.cpp1.ii", O_RDONLY) = 3
1235  openat(AT_FDCWD, "bazel-out/k8/bin/pkg/_cuda/k/compute_90/k.ptx", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4
1235  openat(AT_FDCWD, "external/cuda/include/missing.h", O_RDONLY) = -1 ENOENT (No such file or directory)
1235  openat(AT_FDCWD, "external/cuda/include", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 5
[pid  1236] open("pkg/undeclared.h", O_RDONLY) = 6
1235  openat(AT_FDCWD, "bazel-out/k8/bin/pkg/_cuda/k/compute_90/k.cpp1.ii", O_RDONLY) = 7
1235  +++ exited with 0 +++
"""


class StageReadsTest(unittest.TestCase):
    def test_opened_paths_keep_successful_reads_and_runs_once(self):
        self.assertEqual(lib.opened_paths(TRACE.splitlines()), [
            "/usr/bin/sh",
            "/etc/ld.so.cache",
            "external/cuda/bin/cicc",
            "bazel-out/k8/bin/pkg/_cuda/k/compute_90/k.cpp1.ii",
            "pkg/undeclared.h",
        ])

    def test_compare_matches_by_path_and_by_the_file_a_link_names(self):
        root = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        execroot = os.path.join(root, "execroot")
        toolkit = os.path.join(root, "toolkit")
        os.makedirs(os.path.join(toolkit, "include"))
        os.makedirs(os.path.join(execroot, "external"))
        os.makedirs(os.path.join(execroot, "pkg"))
        os.symlink(toolkit, os.path.join(execroot, "external", "cuda"))
        for path in ("include/a.h", "include/b.h"):
            with open(os.path.join(toolkit, path), "w") as f:
                f.write("x")
        for path in ("pkg/k.cu", "pkg/undeclared.h"):
            with open(os.path.join(execroot, path), "w") as f:
                f.write("x")
        declared = ["pkg/k.cu", "external/cuda/include/a.h", "external/cuda/include/b.h"]
        sizes = {"pkg/k.cu": 100, "external/cuda/include/a.h": 10, "external/cuda/include/b.h": 1000}
        opened = [
            "pkg/k.cu",
            os.path.join(toolkit, "include", "a.h"),  # canonicalised by the compiler
            os.path.join(execroot, "pkg", "undeclared.h"),
            "/etc/ld.so.cache",  # outside the execution root: neither
        ]
        reads = lib.compare(declared, sizes, opened, execroot, lambda p: p.split("/")[0])
        self.assertEqual((reads.declared, reads.declared_bytes), (3, 1110))
        self.assertEqual((reads.read, reads.read_bytes), (2, 110))
        self.assertEqual(reads.undeclared, ["pkg/undeclared.h"])
        self.assertEqual(dict(reads.read_roots), {"pkg": 1, "external": 1})

    def test_compare_reads_the_execution_root_through_proc_self_cwd_and_skips_outputs_and_bytecode(self):
        execroot = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        for path in ("bin/ptxas", "out/k.cubin", "t/__pycache__/m.pyc", "k.ptx"):
            os.makedirs(os.path.dirname(os.path.join(execroot, path)), exist_ok=True)
            with open(os.path.join(execroot, path), "w") as f:
                f.write("x")
        opened = ["/proc/self/cwd/bin/ptxas", "k.ptx", "out/k.cubin", "t/__pycache__/m.pyc"]
        reads = lib.compare(["bin/ptxas", "k.ptx"], {"bin/ptxas": 5, "k.ptx": 1}, opened, execroot,
                            lambda p: p.split("/")[0], outputs=["out/k.cubin"])
        self.assertEqual((reads.read, reads.read_bytes), (2, 6))
        self.assertEqual(reads.undeclared, [])


if __name__ == "__main__":
    unittest.main()
