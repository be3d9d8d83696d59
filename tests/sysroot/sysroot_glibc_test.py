"""A cuda_binary built with the glibc 2.31 sysroot toolchain needs glibc 2.31 at most; built with the default toolchain, a newer one."""

import re
import subprocess

from absl import flags
from absl.testing import absltest
from runfiles import runfiles

FLAGS = flags.FLAGS
flags.DEFINE_string("sysroot_binary", None, "Runfiles path of the binary built with the sysroot toolchain.")
flags.DEFINE_string("default_binary", None, "Runfiles path of the same binary built with the default toolchain.")
flags.DEFINE_string("glibc", None, "The sysroot's glibc version.")


def _version(v):
    return tuple(int(x) for x in v.split("."))


def _newest_glibc(path):
    out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True, check=True).stdout
    versions = {m for m in re.findall(r"\(GLIBC_(\d+\.\d+(?:\.\d+)?)\)", out)}
    return max(versions, key=_version)


def _comments(path):
    out = subprocess.run(["readelf", "-p", ".comment", path], capture_output=True, text=True, check=True).stdout
    return out


class SysrootGlibcTest(absltest.TestCase):
    def setUp(self):
        r = runfiles.Create()
        self.sysroot_binary = r.Rlocation(FLAGS.sysroot_binary)
        self.default_binary = r.Rlocation(FLAGS.default_binary)

    def test_newest_glibc_symbol_is_the_sysroots(self):
        newest = _newest_glibc(self.sysroot_binary)
        self.assertLessEqual(_version(newest), _version(FLAGS.glibc), newest)
        # Built against it: its libstdc++ (gcc 10's, linked statically) and crt files are the sysroot's.
        self.assertIn("GCC: (Debian 10.2.1-6)", _comments(self.sysroot_binary))

    def test_default_toolchain_needs_a_newer_glibc(self):
        self.assertGreater(_version(_newest_glibc(self.default_binary)), _version(FLAGS.glibc))


if __name__ == "__main__":
    absltest.main()
