"""The examples built with a hermetic host toolchain (--//cuda_rules:host_toolchain=gcc10, or
clang22 in clang mode).

- Their binaries need the toolchain's glibc at most (objdump's symbol
  versions), and every host object in them is the toolchain's compilers' (the
  .comment section: the only other compiler named is NVIDIA's, in libcudart_static).
- Every stage that runs a host compiler runs the toolchain's wrapper, with
  its own standard include directories, relative to the execution root.
- No preprocessed file (what cicc and cudafe++ read) names an absolute path:
  neither the output base nor the machine's headers; no stage output names
  the output base.
"""

import os
import re
import subprocess

from absl import flags
from absl.testing import absltest
from runfiles import runfiles

FLAGS = flags.FLAGS
flags.DEFINE_multi_string("binary", [], "Runfiles path of a binary built with the hermetic toolchain.")
flags.DEFINE_multi_string("stage_dir", [], "Workspace-relative directory of a cuda_library's stage scripts and preprocessed files.")
flags.DEFINE_string("glibc", None, "The toolchain's glibc version.")
flags.DEFINE_string("toolchain", "gcc10", "The hermetic toolchain: its repository is @cuda_host_<toolchain>.")
flags.DEFINE_multi_string("comment", [], "A compiler every binary's .comment names (a prefix), e.g. 'GCC: (Debian 10.2.1-6) 10.2.1'.")
flags.DEFINE_multi_string("script", [], "A regular expression: the stage scripts whose name matches it (at least one) run the toolchain's compiler.")
flags.DEFINE_boolean("gcc", True, "The toolchain's compiler is gcc (-nostdinc and its include directories given explicitly).")

_MARKER = re.compile(r'^# [0-9]+ "([^"]*)"', re.M)


def _version(v):
    return tuple(int(x) for x in v.split("."))


def _files(directory, suffix):
    out = []
    for dirpath, _, names in os.walk(directory, followlinks=True):
        out.extend(os.path.join(dirpath, n) for n in names if n.endswith(suffix))
    return sorted(out)


class HostGccTest(absltest.TestCase):
    @classmethod
    def setUpClass(cls):
        r = runfiles.Create()
        cls.binaries = [r.Rlocation(b) for b in FLAGS.binary]
        cls.stage_dirs = [os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"], d) for d in FLAGS.stage_dir]

    def test_binaries_need_the_toolchains_glibc_at_most(self):
        for binary in self.binaries:
            out = subprocess.run(["objdump", "-T", binary], capture_output=True, text=True, check=True).stdout
            versions = set(re.findall(r"\(GLIBC_(\d+\.\d+(?:\.\d+)?)\)", out))
            self.assertTrue(versions, binary)
            newest = max(versions, key=_version)
            self.assertLessEqual(_version(newest), _version(FLAGS.glibc), binary)

    def test_host_code_is_the_toolchains_compilers(self):
        self.assertTrue(FLAGS.comment)
        for binary in self.binaries:
            out = subprocess.run(["readelf", "-p", ".comment", binary], capture_output=True, text=True, check=True).stdout
            comments = {c.strip() for c in re.findall(r"^\s*\[\s*[0-9a-f]+\]\s+(.*)$", out, re.M)}
            for ours in FLAGS.comment:
                self.assertTrue(any(c.startswith(ours) for c in comments), (binary, ours, comments))
            # NVIDIA builds libcudart_static with Red Hat's gcc; any other compiler is the machine's.
            others = {c for c in comments if not any(c.startswith(o) for o in FLAGS.comment) and "(Red Hat " not in c}
            self.assertEqual(others, set(), binary)

    def test_every_stage_runs_the_toolchains_compiler(self):
        for directory in self.stage_dirs:
            scripts = _files(directory, ".sh")
            self.assertGreaterEqual(len(scripts), 5, directory)
            by_name = {}
            for script in scripts:
                with open(script) as f:
                    by_name[os.path.basename(script)] = f.read()
            wrapper = r"external/[^/' ]*cuda_host_%s/bin/(gcc|clang)\b" % FLAGS.toolchain
            self.assertTrue(FLAGS.script)
            for pattern in FLAGS.script:
                names = [n for n in by_name if re.fullmatch(pattern, n)]
                self.assertTrue(names, (directory, pattern, sorted(by_name)))
                for name in names:
                    self.assertRegex(by_name[name], wrapper, name)
            for name, text in by_name.items():
                # No compiler of the machine's (Bazel's autodetected one, or nvcc's own default).
                self.assertNotRegex(text, r"(^|[ '/])(usr/bin|usr/lib/llvm-[0-9]+/bin|opt/rules_cuda_stages/[^ ']*bin)/(gcc|g\+\+|c\+\+|cc|clang|clang\+\+|clang-[0-9]+)\b", name)
            if FLAGS.gcc:
                self.assertIn("-nostdinc", by_name["preprocess.sh"])

    def test_outputs_name_no_output_base(self):
        for directory in self.stage_dirs:
            files = [f for suffix in (".ptx", ".o", ".ii") for f in _files(directory, suffix)]
            self.assertGreaterEqual(len(files), 2, directory)
            for path in files:
                with open(path, "rb") as f:
                    data = f.read()
                self.assertIsNone(re.search(rb"/[^\0\s\"']*/(execroot|external|bazel-out)/", data), path)

    def test_preprocessed_files_name_no_absolute_path(self):
        if not FLAGS.gcc:
            self.skipTest("clang mode preprocesses inside its compile actions (no .ii files)")
        for directory in self.stage_dirs:
            files = _files(directory, ".ii")
            self.assertGreaterEqual(len(files), 2, directory)
            for path in files:
                with open(path) as f:
                    names = set(_MARKER.findall(f.read()))
                absolute = sorted(n for n in names if n.startswith("/"))
                self.assertEqual(absolute, [], path)
                # The C++ library's and the C library's headers come from the toolchain.
                self.assertTrue(any(re.search(r"cuda_host_%s/root/usr/include/c\+\+/10/" % FLAGS.toolchain, n) for n in names), path)
                self.assertTrue(any(re.search(r"cuda_host_%s/root/usr/include/stdlib\.h$" % FLAGS.toolchain, n) for n in names), path)


if __name__ == "__main__":
    absltest.main()
