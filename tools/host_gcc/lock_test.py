"""tools/host_gcc/lock.py: the dependency closure, and the table it wrote (no network)."""

import os
import re
import unittest

from tools.cuda_debs import lock as debs
from tools.host_gcc import lock

_INDEX = """Package: g++-10
Version: 10.2.1-6
Depends: gcc-10-base (= 10.2.1-6), gcc-10 (= 10.2.1-6), libstdc++-10-dev (= 10.2.1-6)

Package: gcc-10
Version: 10.2.1-6
Depends: cpp-10 (= 10.2.1-6), gcc-10-base (= 10.2.1-6), binutils (>= 2.35.2) | binutils-multiarch, libc6 (>= 2.14)

Package: cpp-10
Version: 10.2.1-6
Pre-Depends: libc6 (>= 2.14)
Depends: gcc-10-base (= 10.2.1-6), libisl23:any (>= 0.15)

Package: gcc-10-base
Version: 10.2.1-6

Package: libstdc++-10-dev
Version: 10.2.1-6
Depends: libc6-dev (>= 2.13-5)

Package: libc6-dev
Version: 2.31-13
Depends: libc6 (= 2.31-13), libnsl-dev

Package: libnsl-dev
Version: 1.3.0-2
Depends: libtirpc-dev

Package: libtirpc-dev
Version: 1.3.1-1

Package: libc6
Version: 2.31-13

Package: binutils
Version: 2.35.2-2
Depends: libc6

Package: binutils-multiarch
Version: 2.35.2-2

Package: libisl23
Version: 0.23-1
"""


class ClosureTest(unittest.TestCase):
    def test_first_alternatives_arch_qualifiers_and_pre_depends(self):
        index = debs.parse_packages(_INDEX)
        self.assertEqual(
            lock.closure(index, ["g++-10"], {"libnsl-dev"}),
            ["binutils", "cpp-10", "g++-10", "gcc-10", "gcc-10-base", "libc6", "libc6-dev", "libisl23", "libstdc++-10-dev"],
        )

    def test_left_out_packages_drop_what_only_they_need(self):
        index = debs.parse_packages(_INDEX)
        self.assertIn("libtirpc-dev", lock.closure(index, ["libc6-dev"], set()))
        self.assertNotIn("libtirpc-dev", lock.closure(index, ["libc6-dev"], {"libnsl-dev"}))

    def test_a_package_missing_from_the_index_is_an_error(self):
        with self.assertRaisesRegex(debs.LockError, "libfoo is not in the index"):
            lock.closure(debs.parse_packages(_INDEX), ["libfoo"], set())


class TableTest(unittest.TestCase):
    """What the repository rule relies on in the checked-in table."""

    @classmethod
    def setUpClass(cls):
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(lock.__file__))))
        cls.table = lock.read_table(os.path.join(here, "cuda_rules", "private", "repo", "host_gcc_debs.bzl"))

    def test_renders_back_to_itself(self):
        with open(lock.TABLE) as f:
            self.assertEqual(lock.render(self.table), f.read())

    def test_every_deb_is_pinned_and_mirrored(self):
        for name, entry in self.table.items():
            for platform, entries in entry["debs"].items():
                packages = [d["package"] for d in entries]
                self.assertEqual(len(packages), len(set(packages)), (name, platform))
                clang = name in lock.CLANG_TOOLCHAINS
                # The mirror first, then where its files stay: the archive a suite moves
                # to, or (a stable suite, whose point releases supersede them) the snapshot
                # archive as of the lock.
                fallback = lock.SNAPSHOT.format(timestamp=entry["snapshot"]) if clang else lock.ARCHIVE
                for deb in entries:
                    self.assertRegex(deb["sha256"], r"^[0-9a-f]{64}$")
                    self.assertEqual(deb["type"], "deb")
                    self.assertEqual(deb["output"], "clang" if clang else "root")
                    self.assertEqual([re.sub(r"/pool/.*", "", u) for u in deb["urls"]], [lock.MIRROR, fallback], deb["package"])
                    self.assertEqual(len({u.split("/pool/", 1)[1] for u in deb["urls"]}), 1, deb["urls"])

    def test_one_suite_gives_the_compiler_and_the_c_library(self):
        entry = self.table["gcc10"]
        self.assertEqual(entry["suite"], "bullseye")
        packages = {d["package"]: d["version"] for d in entry["debs"]["x86_64"]}
        for needed in ("gcc-10", "g++-10", "cpp-10", "binutils", "libc6", "libc6-dev", "libstdc++-10-dev", "linux-libc-dev"):
            self.assertIn(needed, packages)
        self.assertEqual(entry["gcc_version"], packages["gcc-10"])
        self.assertEqual(entry["glibc"], "2.31")
        for left_out in lock.TOOLCHAINS["gcc10"]["left_out"]:
            self.assertNotIn(left_out, packages)

    def test_each_platform_has_the_same_versions(self):
        """x86-64 and aarch64 (Grace, Graviton): one closure, the same versions, each platform's loader."""
        entry = self.table["gcc10"]
        self.assertEqual(sorted(entry["debs"]), ["aarch64", "x86_64"])
        versions = {p: {d["package"]: d["version"] for d in debs} for p, debs in entry["debs"].items()}
        # The binutils of each platform's triplet; libquadmath (x86's __float128) has no arm64 build.
        arm, x86 = versions["aarch64"], versions["x86_64"]
        self.assertEqual(set(x86) - set(arm), {"binutils-x86-64-linux-gnu", "libquadmath0"})
        self.assertEqual(set(arm) - set(x86), {"binutils-aarch64-linux-gnu"})
        self.assertEqual({p: v for p, v in arm.items() if p in x86}, {p: v for p, v in x86.items() if p in arm})
        self.assertTrue(all(d["filename"].endswith("_arm64.deb") or d["filename"].endswith("_all.deb") for d in entry["debs"]["aarch64"]))
        self.assertEqual(entry["loaders"], {"x86_64": "lib64/ld-linux-x86-64.so.2", "aarch64": "lib/ld-linux-aarch64.so.1"})
        self.assertEqual(entry["triplets"], {"x86_64": "x86_64-linux-gnu", "aarch64": "aarch64-linux-gnu"})



class ClangTableTest(unittest.TestCase):
    """The clang toolchain: its compiler's closure, and the gcc toolchain it builds against."""

    @classmethod
    def setUpClass(cls):
        cls.table = lock.read_table()

    def test_the_compiler_its_headers_and_its_c_library(self):
        entry = self.table["clang22"]
        self.assertEqual((entry["suite"], entry["clang"]), ("trixie", "22"))
        self.assertRegex(entry["snapshot"], r"^\d{8}T\d{6}Z$")
        for platform, entries in entry["debs"].items():
            packages = {d["package"]: d["version"] for d in entries}
            # The resource directory (the CUDA wrapper headers) and the C library clang runs on.
            for needed in ("clang-22", "libclang-common-22-dev", "libllvm22", "libclang-cpp22", "libc6"):
                self.assertIn(needed, packages, platform)
            self.assertEqual(packages["clang-22"], entry["clang_version"], platform)
            # What clang builds against comes from the sysroot toolchain, not this suite.
            for left_out in ("libc6-dev", "libstdc++-14-dev", "binutils"):
                self.assertNotIn(left_out, packages, platform)
        self.assertEqual(entry["loaders"], {"aarch64": "usr/lib/ld-linux-aarch64.so.1", "x86_64": "usr/lib64/ld-linux-x86-64.so.2"})

    def test_its_sysroot_is_a_gcc_toolchain_of_the_table(self):
        entry = self.table["clang22"]
        self.assertIn(entry["sysroot"], lock.TOOLCHAINS)
        self.assertEqual(sorted(entry["debs"]), sorted(self.table[entry["sysroot"]]["debs"]))


if __name__ == "__main__":
    unittest.main()
