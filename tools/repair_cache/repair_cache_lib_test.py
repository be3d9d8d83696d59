"""repair_cache on disk caches laid out as Bazel writes them: damaged blobs go, nothing else is touched."""

import hashlib
import os
import tempfile
import unittest

from tools.repair_cache import repair_cache_lib


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(number, value):
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _digest(data):
    return _field(1, hashlib.sha256(data).hexdigest().encode()) + _field(2, len(data))


def action_result(outputs, stdout=None):
    """An REAPI ActionResult with OutputFile{path, digest} entries (field 2), exit code 0 and an optional stdout digest."""
    msg = b"".join(_field(2, _field(1, path.encode()) + _field(2, _digest(data))) for path, data in outputs)
    msg += _field(4, 0)
    if stdout is not None:
        msg += _field(6, _digest(stdout))
    return msg


class Cache:
    """A disk cache in Bazel's layout: cas/<2>/<sha256>, ac/<2>/<key>, tmp/."""

    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "tmp"))

    def put(self, data, store="cas", name=None):
        name = name or hashlib.sha256(data).hexdigest()
        path = os.path.join(self.root, store, name[:2], name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.utime(path, (1000000000, 1000000000))  # an old mtime, so a change would show
        return path

    def blob(self, data):
        h = hashlib.sha256(data).hexdigest()
        return os.path.join(self.root, "cas", h[:2], h)


def _damage(path, how):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if how == "flip":
        data[len(data) // 2] ^= 0x01
    elif how == "truncate":
        data = data[: len(data) // 2]
    elif how == "zero":
        data = bytearray(len(data))
    with open(path, "wb") as f:
        f.write(data)


class RepairCacheTest(unittest.TestCase):
    def setUp(self):
        self.cache = Cache(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")))
        self.good = [b"cubin of sm_80" * 100, b"", b"x", os.urandom(3 * 1024 * 1024 + 7)]
        for data in self.good:
            self.cache.put(data)

    def _mtimes(self):
        out = {}
        for dirpath, _, files in os.walk(self.cache.root):
            for name in files:
                path = os.path.join(dirpath, name)
                out[path] = os.lstat(path).st_mtime
        return out

    def test_healthy_cache_is_left_as_it_was(self):
        before = self._mtimes()
        report = repair_cache_lib.repair(self.cache.root)
        self.assertEqual(report.checked, len(self.good))
        self.assertEqual(report.bad, [])
        self.assertTrue(report.ok)
        self.assertEqual(self._mtimes(), before)
        self.assertIn("every blob matches its digest", repair_cache_lib.format_report(report))

    def test_flipped_truncated_and_zeroed_blobs_are_removed(self):
        damaged = {}
        for how in ("flip", "truncate", "zero"):
            data = ("the %s cubin" % how).encode() * 50
            path = self.cache.put(data)
            _damage(path, how)
            damaged[how] = path
        before = {p: t for p, t in self._mtimes().items() if p not in damaged.values()}
        report = repair_cache_lib.repair(self.cache.root)
        self.assertEqual(sorted(os.path.join(self.cache.root, b.path) for b in report.bad), sorted(damaged.values()))
        self.assertTrue(all(b.removed for b in report.bad))
        self.assertTrue(report.ok)
        for path in damaged.values():
            self.assertFalse(os.path.exists(path), path)
        # Every good blob is still there, unchanged (mtime included), and nothing was left in tmp/.
        self.assertEqual(self._mtimes(), before)
        self.assertEqual(os.listdir(os.path.join(self.cache.root, "tmp")), [])
        # A second run finds nothing.
        self.assertEqual(repair_cache_lib.repair(self.cache.root).bad, [])

    def test_dry_run_removes_nothing(self):
        path = self.cache.put(b"ptx" * 10)
        _damage(path, "flip")
        report = repair_cache_lib.repair(self.cache.root, dry_run=True)
        self.assertEqual([b.path for b in report.bad], [os.path.relpath(path, self.cache.root)])
        self.assertTrue(os.path.exists(path))
        self.assertFalse(report.ok)
        self.assertIn("would be removed (--dry_run)", repair_cache_lib.format_report(report, dry_run=True))

    def test_report_names_the_outputs_and_the_expected_size(self):
        cubin = b"\x7fELF cubin" * 400
        other = b"host object" * 3
        self.cache.put(cubin)
        self.cache.put(other)
        out_path = "bazel-out/k8-fastbuild/bin/pkg/_cuda/k/k/compute_90/sm_90/k.cubin"
        self.cache.put(action_result([(out_path, cubin), ("bazel-out/x/k.host.o", other)], stdout=b"warning"),
                       store="ac", name=hashlib.sha256(b"an action").hexdigest())
        self.cache.put(b"not a protobuf \xff\xff\xff", store="ac", name=hashlib.sha256(b"junk").hexdigest())
        _damage(self.cache.blob(cubin), "truncate")
        report = repair_cache_lib.repair(self.cache.root)
        (bad,) = report.bad
        self.assertEqual(bad.expected, hashlib.sha256(cubin).hexdigest())
        self.assertEqual(bad.outputs, [out_path])
        self.assertEqual(bad.expected_sizes, [len(cubin)])
        self.assertEqual(bad.size, len(cubin) // 2)
        text = repair_cache_lib.format_report(report)
        self.assertIn("stored as " + out_path, text)
        self.assertIn("should be %d bytes" % len(cubin), text)
        self.assertIn("%d bytes whose digest is %s" % (len(cubin) // 2, bad.actual), text)
        # The action result itself is left: Bazel treats it as a miss once its blob is gone.
        self.assertTrue(os.path.exists(os.path.join(self.cache.root, "ac")))

    def test_other_files_are_left_alone(self):
        tmp_file = os.path.join(self.cache.root, "tmp", "3f2a-uuid")
        with open(tmp_file, "wb") as f:
            f.write(b"a blob being written")
        odd = os.path.join(self.cache.root, "cas", "zz")
        os.makedirs(odd)
        short = os.path.join(self.cache.root, "cas", "ab", "abcd")
        os.makedirs(os.path.dirname(short), exist_ok=True)
        with open(short, "wb") as f:
            f.write(b"not a blob name")
        gc = os.path.join(self.cache.root, "gc")
        os.makedirs(gc)
        with open(os.path.join(gc, "lock"), "wb"):
            pass
        report = repair_cache_lib.repair(self.cache.root)
        self.assertEqual(report.bad, [])
        for path in (tmp_file, odd, short, os.path.join(gc, "lock")):
            self.assertTrue(os.path.exists(path), path)
        self.assertEqual(sorted(report.skipped), ["cas/ab/abcd", "cas/zz"])

    def test_symlinked_blob_is_not_followed(self):
        target = os.path.join(self.cache.root, "elsewhere")
        with open(target, "wb") as f:
            f.write(b"outside the cache")
        name = hashlib.sha256(b"outside the cache").hexdigest()
        link = os.path.join(self.cache.root, "cas", name[:2], name)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(target, link)
        report = repair_cache_lib.repair(self.cache.root)
        self.assertEqual(len(report.errors), 1)
        self.assertFalse(report.ok)
        self.assertTrue(os.path.islink(link))
        self.assertTrue(os.path.exists(target))

    def test_blob_stored_again_while_checked_is_kept(self):
        # A build stores the correct blob again between the check and the
        # removal (after Bazel's GC removed the damaged one): it must stay.
        data = b"the sm_90 cubin" * 64
        path = self.cache.put(data)
        _damage(path, "flip")

        def restored_by_a_build(bad):
            os.unlink(path)
            with open(path + ".new", "wb") as f:
                f.write(data)
            os.rename(path + ".new", path)

        report = repair_cache_lib.repair(self.cache.root, before_remove=restored_by_a_build)
        (bad,) = report.bad
        self.assertFalse(bad.removed)
        self.assertIn("stored it again, correctly", bad.note)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), data)
        self.assertEqual(os.listdir(os.path.join(self.cache.root, "tmp")), [])
        self.assertEqual(repair_cache_lib.repair(self.cache.root).bad, [])

    def test_blob_removed_while_checked(self):
        path = self.cache.put(b"gone soon" * 9)
        _damage(path, "zero")
        report = repair_cache_lib.repair(self.cache.root, before_remove=lambda bad: os.unlink(path))
        (bad,) = report.bad
        self.assertFalse(bad.removed)
        self.assertIn("removed meanwhile", bad.note)
        self.assertFalse(os.path.exists(path))

    def test_named_digest_function_store(self):
        data = b"sha512 store"
        name = hashlib.sha512(data).hexdigest()
        path = os.path.join(self.cache.root, "sha512", "cas", name[:2], name)
        os.makedirs(os.path.dirname(path))
        with open(path, "wb") as f:
            f.write(b"sha512 storE")
        report = repair_cache_lib.repair(self.cache.root)
        self.assertEqual([b.path for b in report.bad], [os.path.relpath(path, self.cache.root)])
        self.assertFalse(os.path.exists(path))

    def test_not_a_cache(self):
        with self.assertRaisesRegex(repair_cache_lib.CacheError, "not a Bazel disk cache"):
            repair_cache_lib.repair(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")))


if __name__ == "__main__":
    unittest.main()
