"""Binaries built here run elsewhere: their glibc symbol versions and their shared libraries.

For every binary given (the repository's test binaries, GPU tests included):
1. no dynamic symbol of the binary, or of a shared library in its runfiles,
   needs a glibc version newer than the floor (--floor, default: the
   BAZELW_GLIBC_FLOOR test environment variable that tools/bazelw's offline
   config sets; without it the glibc of this machine);
2. the binary, copied to a fresh directory with its runfiles (the runfiles as
   symlinks to the files, the binary itself as a file, so its $ORIGIN is the
   copy), finds every shared library it needs inside the copy, with no
   LD_LIBRARY_PATH: only the C library and the driver's own libraries
   (libcuda.so.1, libnvidia-ml.so.1) may come from the system.
"""

import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

from absl import flags
from absl.testing import absltest

FLAGS = flags.FLAGS
flags.DEFINE_string("floor", os.environ.get("BAZELW_GLIBC_FLOOR", ""), "Newest glibc version a binary may need.")
flags.DEFINE_multi_string("binary", [], "A binary to check (runfiles path).")

# Libraries the target machine provides: the C library, the libraries the
# manylinux policy lets wheels (NVIDIA's included) expect (libgcc_s, libstdc++;
# libz for cuDNN), gcc's OpenMP runtime (libgomp, which -fopenmp code links
# like libgcc_s: the machine's gcc runtime provides it), and the driver's.
SYSTEM = re.compile(r"^(libc|libm|libdl|libpthread|librt|libresolv|libutil|libgcc_s|libstdc\+\+|libgomp|libz|ld-linux[-\w]*|linux-vdso)\.so(\.\d+)*$|^libcuda\.so\.1$|^libnvidia-ml\.so\.1$")
DRIVER = ("libcuda.so.1", "libnvidia-ml.so.1")


def _version(v):
    return tuple(int(x) for x in v.split("."))


def glibc_versions(path):
    """The GLIBC_x.y versions the dynamic symbols of an ELF file need."""
    out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True, check=True).stdout
    return sorted({m for m in re.findall(r"\(GLIBC_(\d+\.\d+(?:\.\d+)?)\)", out)}, key=_version)


def shared_libraries(runfiles_dir):
    found = []
    for root, _, files in os.walk(runfiles_dir, followlinks=True):
        for f in files:
            if re.search(r"\.so(\.\d+)*$", f):
                found.append(os.path.join(root, f))
    return sorted(found)


def mirror_runfiles(runfiles, dest):
    """Recreates a runfiles tree under dest as symlinks to the real files (no bytes copied)."""
    for root, _, files in os.walk(runfiles, followlinks=True):
        rel = os.path.relpath(root, runfiles)
        os.makedirs(os.path.join(dest, rel), exist_ok=True)
        for f in files:
            os.symlink(os.path.realpath(os.path.join(root, f)), os.path.join(dest, rel, f))


def copy_binary(binary, dest, runfiles):
    """Copies binary into dest as a file, with dest/<name>.runfiles pointing at a mirrored tree."""
    copy = os.path.join(dest, os.path.basename(binary))
    shutil.copy2(os.path.realpath(binary), copy)
    os.symlink(runfiles, copy + ".runfiles")
    return copy


def loaded_objects(binary):
    """{soname: resolved path or None} as the dynamic loader resolves them (no code runs)."""
    env = {"LD_TRACE_LOADED_OBJECTS": "1", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([binary], env=env, capture_output=True, text=True).stdout
    result = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (not found|(\S+))", line)
        if m:
            result[m.group(1)] = None if m.group(2) == "not found" else m.group(3)
    return result


def default_floor():
    return FLAGS.floor or platform.libc_ver()[1]


class PortabilityTest(absltest.TestCase):
    def test_binaries(self):
        self.assertNotEmpty(FLAGS.binary, "no --binary given")
        floor = default_floor()
        print("glibc floor: %s (%s)" % (floor, "BAZELW_GLIBC_FLOOR" if FLAGS.floor else "this machine's glibc"))
        # The binaries' runfiles are merged into this test's: the same tree
        # (<root>/_main/_solib_<cpu>/...) their RUNPATH names.
        runfiles = os.environ["TEST_SRCDIR"]
        problems = []
        for path in [os.path.join(runfiles, b) for b in FLAGS.binary] + shared_libraries(runfiles):
            versions = glibc_versions(path)
            bad = [v for v in versions if _version(v) > _version(floor)]
            if bad:
                problems.append("%s needs GLIBC_%s (floor %s)" % (os.path.basename(path), ", GLIBC_".join(bad), floor))
        with tempfile.TemporaryDirectory() as tmp:
            mirrored = os.path.join(tmp, "runfiles")
            mirror_runfiles(runfiles, mirrored)
            for binary in FLAGS.binary:
                name = os.path.basename(binary)
                with tempfile.TemporaryDirectory(dir=tmp) as dest:
                    copy = copy_binary(os.path.join(runfiles, binary), dest, mirrored)
                    objects = loaded_objects(copy)
                for soname, where in sorted(objects.items()):
                    if where is None and soname not in DRIVER:
                        problems.append("%s: %s not found" % (name, soname))
                    elif where and not SYSTEM.match(soname) and not os.path.abspath(where).startswith(tmp + "/"):
                        problems.append("%s: %s came from %s, not from the copied runfiles" % (name, soname, where))
                shipped = sorted(s for s in objects if not SYSTEM.match(s))
                print("%-34s newest GLIBC_%s; %d shared libraries from its runfiles%s" % (
                    name, glibc_versions(os.path.join(runfiles, binary))[-1], len(shipped), (": " + " ".join(shipped)) if shipped else ""))
        self.assertEqual([], problems, "\n".join(problems))


if __name__ == "__main__":
    absltest.main()
