"""lock.py (Debian): reading Packages indices and .debs, mapping files, and the table it wrote (no network)."""

import io
import os
import tarfile
import unittest

import lock


def _tar_xz(entries):
    """A data.tar.xz with entries (name, kind, payload or link target)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        for name, kind, value in entries:
            info = tarfile.TarInfo(name)
            if kind == "dir":
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif kind == "file":
                info.size = len(value)
                info.mode = 0o755
                tar.addfile(info, io.BytesIO(value))
            elif kind == "symlink":
                info.type = tarfile.SYMTYPE
                info.linkname = value
                tar.addfile(info)
            else:
                info.type = tarfile.LNKTYPE
                info.linkname = value
                tar.addfile(info)
    return buf.getvalue()


def _ar(members):
    out = b"!<arch>\n"
    for name, data in members:
        header = "%-16s%-12s%-6s%-6s%-8s%-10d`\n" % (name + "/", "0", "0", "0", "100644", len(data))
        out += header.encode() + data + (b"\n" if len(data) % 2 else b"")
    return out


def _deb(entries):
    return _ar([("debian-binary", b"2.0\n"), ("control.tar.xz", _tar_xz([])), ("data.tar.xz", _tar_xz(entries))])


class LockTest(unittest.TestCase):
    def test_packages_index(self):
        text = "\n".join([
            "Package: libcudart12",
            "Source: nvidia-cuda-toolkit (12.4.1-2)",
            "Version: 12.4.127~12.4.1-2",
            "Filename: pool/non-free/n/nvidia-cuda-toolkit/libcudart12_12.4.127~12.4.1-2_amd64.deb",
            "Size: 176216",
            "SHA256: " + "b" * 64,
            "Description: runtime",
            " continued",
            "",
            "Package: libcub-dev",
            "Source: cccl",
            "Version: 2.3.2-2",
            "",
        ])
        index = lock.parse_packages(text)
        self.assertEqual(lock.source_of(index["libcudart12"][0]), ("nvidia-cuda-toolkit", "12.4.1-2"))
        self.assertEqual(lock.source_of(index["libcub-dev"][0]), ("cccl", "2.3.2-2"))
        self.assertEqual(index["libcudart12"][0]["Description"], "runtime\ncontinued")
        self.assertEqual(lock.pick(index, "libcudart12", ("nvidia-cuda-toolkit", "12.4.1-2"))["Size"], "176216")
        with self.assertRaisesRegex(lock.LockError, r"libcudart12 of source nvidia-cuda-toolkit 12.4.1-8 is not in the index \(it has: 12.4.127~12.4.1-2"):
            lock.pick(index, "libcudart12", ("nvidia-cuda-toolkit", "12.4.1-8"))

    def test_deb_members_and_mapping(self):
        deb = _deb([
            ("./usr/", "dir", None),
            ("./usr/lib/x86_64-linux-gnu/libcudart.so.12.4.127", "file", b"ELF"),
            ("./usr/lib/x86_64-linux-gnu/libcudart.so.12", "symlink", "libcudart.so.12.4.127"),
            ("./usr/lib/x86_64-linux-gnu/libcudart.so", "symlink", "libcudart.so.12"),
            ("./usr/lib/nvidia-cuda-toolkit/bin/nvcc", "file", b"nvcc"),
            ("./usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile", "symlink", "/etc/nvcc.profile"),
            ("./usr/bin/ptxas", "hardlink", "./usr/lib/nvidia-cuda-toolkit/bin/nvcc"),
            ("./usr/share/doc/x/copyright", "file", b"c"),
            ("./usr/lib/x86_64-linux-gnu/libcupti.so", "symlink", "libcupti.so.12"),
        ])
        name, members = lock.deb_members(deb)
        self.assertEqual(name, "data.tar.xz")
        self.assertEqual(members["usr/lib/x86_64-linux-gnu/libcudart.so.12"], ("symlink", "libcudart.so.12.4.127"))
        self.assertEqual(members["usr/bin/ptxas"], ("hardlink", "usr/lib/nvidia-cuda-toolkit/bin/nvcc"))

        # Links resolve to the file they name; of several names of one file, the shortest destination.
        files = lock.map_files("libcudart12", members, [(r"usr/lib/{triplet}/(libcudart\.so\.[0-9]+)", r"lib/\1")], "x86_64-linux-gnu")
        self.assertEqual(files, {"./usr/lib/x86_64-linux-gnu/libcudart.so.12.4.127": "lib/libcudart.so.12"})
        files = lock.map_files("x", members, [(r"usr/lib/{triplet}/(lib[^/]+\.so(\.[0-9.]+)?)", r"lib/\1")], "x86_64-linux-gnu", dangling_ok=True)
        self.assertEqual(files, {"./usr/lib/x86_64-linux-gnu/libcudart.so.12.4.127": "lib/libcudart.so"})
        # A hard link is its target.
        files = lock.map_files("x", members, [(r"usr/bin/ptxas", "bin/ptxas")], "x86_64-linux-gnu")
        self.assertEqual(files, {"./usr/lib/nvidia-cuda-toolkit/bin/nvcc": "bin/ptxas"})
        # A link out of the package is an error unless allowed.
        with self.assertRaisesRegex(lock.LockError, "libcupti.so is a link to 'libcupti.so.12', which the package does not hold"):
            lock.map_files("x", members, [(r"usr/lib/{triplet}/(libcupti\.so)", r"lib/\1")], "x86_64-linux-gnu")
        self.assertEqual(lock.prefix_files(members, "usr/bin", "bin"), {"./usr/bin/ptxas": "bin/ptxas"})
        with self.assertRaisesRegex(lock.LockError, "not a Debian package"):
            lock.deb_members(b"PK\x03\x04")

    def test_table(self):
        table = lock.read_table()
        self.assertEqual(sorted(table), sorted(lock.DEBIAN))
        for cuda, entry in table.items():
            self.assertEqual(sorted(entry["debs"]), sorted(lock.PLATFORMS))
            self.assertEqual(entry["components"], lock.TOOLKIT_COMPONENTS)
            self.assertTrue(entry["nvcc_version"].startswith(cuda + "."), entry["nvcc_version"])
            for platform, debs in entry["debs"].items():
                dests = set()
                for deb in debs:
                    dests.update(deb.get("files", {}).values())
                    self.assertEqual(deb["url"], lock.MIRROR + "/pool/" + deb["url"].split("/pool/", 1)[1])
                    self.assertEqual(os.path.basename(deb["url"]), deb["filename"])
                # CCCL's headers come as whole directories (TOOLKIT_PREFIX_PACKAGES), the rest file by file.
                cccl = {"include/cub/cub.cuh", "include/thrust/version.h", "include/cuda/std/version"}
                self.assertEqual([p for p in lock.TOOLKIT_REQUIRED if p not in dests and p not in cccl], [], platform)
                self.assertEqual(sorted(d["output"] for d in debs if "output" in d), ["include"] * 3)
            self.assertEqual(sorted(entry["libraries"]), sorted(lock.LIBRARY_PACKAGES))
        self.assertEqual(lock.render(table), open(lock.TABLE).read(), "the table is what render() writes")


if __name__ == "__main__":
    unittest.main()
