"""The examples built with the hermetic host toolchain (--//cuda_rules:host_toolchain=gcc10).

- Their binaries need the toolchain's glibc at most (objdump's symbol
  versions), and every host object in them is the toolchain's gcc's (the
  .comment section: the only other compiler named is NVIDIA's, in libcudart_static).
- Every stage that runs a host compiler runs the toolchain's wrapper, with
  its own standard include directories, relative to the execution root.
- No preprocessed file (what cicc and cudafe++ read) names an absolute path:
  neither the output base nor the machine's headers.
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
flags.DEFINE_string("gcc_version", None, "The toolchain's gcc package version (Debian's).")

_WRAPPER = re.compile(r"external/[^/' ]*cuda_host_gcc10/bin/gcc")
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

    def test_host_code_is_the_toolchains_gccs(self):
        upstream = FLAGS.gcc_version.split("-")[0]
        for binary in self.binaries:
            out = subprocess.run(["readelf", "-p", ".comment", binary], capture_output=True, text=True, check=True).stdout
            comments = set(re.findall(r"GCC: .*", out))
            ours = "GCC: (Debian %s) %s" % (FLAGS.gcc_version, upstream)
            self.assertTrue(any(c.startswith(ours) for c in comments), (binary, comments))
            # NVIDIA builds libcudart_static with Red Hat's gcc; any other compiler is the machine's.
            others = {c for c in comments if not c.startswith(ours) and "(Red Hat " not in c}
            self.assertEqual(others, set(), binary)

    def test_every_stage_runs_the_toolchains_compiler(self):
        for directory in self.stage_dirs:
            scripts = _files(directory, ".sh")
            self.assertGreaterEqual(len(scripts), 5, directory)
            by_name = {}
            for script in scripts:
                with open(script) as f:
                    by_name[os.path.basename(script)] = f.read()
            for name in ("preprocess.sh", "host_compile.sh", "embed_fatbin.sh"):
                self.assertRegex(by_name[name], _WRAPPER, name)
            for name, text in by_name.items():
                # No compiler of the machine's (Bazel's autodetected one, or nvcc's own default).
                self.assertNotRegex(text, r"(^|[ '/])(usr/bin|opt/rules_cuda_stages/bin)/(gcc|g\+\+|c\+\+|cc)\b", name)
            self.assertIn("-nostdinc", by_name["preprocess.sh"])

    def test_preprocessed_files_name_no_absolute_path(self):
        for directory in self.stage_dirs:
            files = _files(directory, ".ii")
            self.assertGreaterEqual(len(files), 2, directory)
            for path in files:
                with open(path) as f:
                    names = set(_MARKER.findall(f.read()))
                absolute = sorted(n for n in names if n.startswith("/"))
                self.assertEqual(absolute, [], path)
                # The C++ library's and the C library's headers come from the toolchain.
                self.assertTrue(any(re.search(r"cuda_host_gcc10/root/usr/include/c\+\+/10/", n) for n in names), path)
                self.assertTrue(any(re.search(r"cuda_host_gcc10/root/usr/include/stdlib\.h$", n) for n in names), path)


if __name__ == "__main__":
    absltest.main()
