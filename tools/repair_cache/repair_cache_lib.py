"""Finds the blobs of a Bazel disk cache whose bytes do not match their name, and removes them.

A disk cache (`--disk_cache=DIR`, and the `--cas_path` of Bazel's own
RemoteWorker, which uses the same layout) keeps each blob at
`cas/<first 2 hex digits>/<hash>`, named by the hash of its content, and each
action result at `ac/<2>/<action digest>`. Bazel never rewrites a blob that
exists and never checks its content when it serves an action result from the
cache, so a blob damaged on disk (truncated, zeroed, a flipped bit) stays and
fails, or on Bazel 9.1+ silently feeds, every build that needs it
(docs/remote.md, "A damaged cache").

`repair()` hashes every blob, and removes each one whose content does not
match its name, the way Bazel's own garbage collection removes entries: it
only deletes, never writes a blob. Bazel then sees a missing blob, treats the
action results that name it as misses, and re-runs the actions that made it,
which store it again, correctly. So it is safe while builds use the cache:

- a blob is hashed through one open file descriptor (no symbolic link is
  followed); a damaged one is renamed into the cache's `tmp/` (same file
  system, one atomic step; Bazel's GC skips `tmp/`), hashed again there and
  only then unlinked, so a blob that a build stored again, correctly, in
  between is put back;
- files outside `cas/<2 hex>/<hash>` (temporary files, the GC's lock, action
  results) are never touched, and healthy blobs keep their modification time
  (reading changes none), which Bazel's GC orders entries by.

Only the Python standard library is used.
"""

import concurrent.futures
import dataclasses
import hashlib
import os
import stat
import time

# Digest functions by the length of their hex hashes, for the stores at the
# cache's root (Bazel's "old style" functions keep `cas/` there).
_ROOT_FUNCTIONS = {64: "sha256", 40: "sha1", 32: "md5"}
# Other functions keep their stores under `<root>/<function>/`.
_NAMED_FUNCTIONS = ("sha384", "sha512")
_HEX = frozenset("0123456789abcdef")
_CHUNK = 1 << 20


class CacheError(Exception):
    """The directory is not a disk cache this tool can check."""


@dataclasses.dataclass
class Bad:
    """A blob whose content does not match its name."""

    path: str  # relative to the cache root, e.g. cas/a3/a308...
    expected: str  # the hash in its name
    actual: str  # the hash of what the file holds
    size: int  # bytes the file held
    expected_sizes: list = dataclasses.field(default_factory=list)  # from action results naming it
    outputs: list = dataclasses.field(default_factory=list)  # output paths of action results naming it
    removed: bool = False
    note: str = ""  # why it was not removed
    algorithm: str = "sha256"


@dataclasses.dataclass
class Report:
    root: str
    checked: int = 0
    bytes: int = 0
    seconds: float = 0.0
    bad: list = dataclasses.field(default_factory=list)  # [Bad]
    errors: list = dataclasses.field(default_factory=list)  # [str]: blobs that could not be read
    skipped: list = dataclasses.field(default_factory=list)  # [str]: entries that are not blobs

    @property
    def ok(self):
        """Nothing damaged is left in the cache and every blob could be read."""
        return not self.errors and all(b.removed for b in self.bad)


def _is_hex(name, length):
    return len(name) == length and set(name) <= _HEX


def stores(root):
    """[(algorithm, cas directory)] of the disk cache at `root`; raises CacheError if it has none."""
    out = []
    if os.path.isdir(os.path.join(root, "cas")):
        out.append((None, os.path.join(root, "cas")))  # the algorithm follows from each name's length
    for name in _NAMED_FUNCTIONS:
        cas = os.path.join(root, name, "cas")
        if os.path.isdir(cas):
            out.append((name, cas))
    if not out:
        raise CacheError("%s is not a Bazel disk cache: it has no cas/ directory (the directory given to "
                         "--disk_cache, or a RemoteWorker's --cas_path)" % root)
    return out


def blobs(root):
    """[(relative path, algorithm)] of every blob file of the cache, and [relative path] of what was skipped."""
    found, skipped = [], []
    for algorithm, cas in stores(root):
        for prefix in sorted(os.listdir(cas)):
            directory = os.path.join(cas, prefix)
            if not (len(prefix) == 2 and set(prefix) <= _HEX) or os.path.islink(directory) or not os.path.isdir(directory):
                skipped.append(os.path.relpath(directory, root))
                continue
            for name in sorted(os.listdir(directory)):
                path = os.path.join(directory, name)
                algo = algorithm or _ROOT_FUNCTIONS.get(len(name))
                if algo is None or not _is_hex(name, hashlib.new(algo).digest_size * 2) or not name.startswith(prefix):
                    skipped.append(os.path.relpath(path, root))
                    continue
                found.append((os.path.relpath(path, root), algo))
    return found, skipped


def _hash_file(path, algorithm):
    """(hex digest, size) of a regular file, read through one descriptor; no symbolic link is followed."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError("not a regular file")
        h = hashlib.new(algorithm)
        size = 0
        while True:
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            h.update(chunk)
            size += len(chunk)
        return h.hexdigest(), size
    finally:
        os.close(fd)


def _remove_if_still_bad(root, rel, algorithm, before_rename=None):
    """Removes root/rel if the file there still does not match its name; returns "" or why it was left.

    The file is renamed into root/tmp first (atomic on one file system, and
    out of reach of every build), hashed again there, and only then deleted:
    a blob that a build stored again, correctly, at that path while this ran
    (after Bazel's GC removed the damaged one, say) is linked back instead,
    unless the path was filled once more meanwhile.
    """
    path = os.path.join(root, rel)
    tmp = os.path.join(root, "tmp")
    os.makedirs(tmp, exist_ok=True)
    quarantine = os.path.join(tmp, "repair_cache-%d-%s" % (os.getpid(), os.path.basename(rel)))
    if before_rename:
        before_rename()
    try:
        os.rename(path, quarantine)
    except FileNotFoundError:
        return "it was removed meanwhile (by Bazel's garbage collection or another run)"
    try:
        actual = _hash_file(quarantine, algorithm)[0]
    except OSError:
        actual = None
    if actual == os.path.basename(rel):
        try:
            os.link(quarantine, path)  # put it back, never over a file that is there now
        except FileExistsError:
            pass
        os.unlink(quarantine)
        return "a build stored it again, correctly, while it was checked; that copy was left in place"
    os.unlink(quarantine)
    return ""


def _varint(data, i):
    shift = value = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated varint")
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _fields(data):
    """Yields (field number, wire type, value) of a protobuf message: varints as int, length-delimited as bytes."""
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            length, i = _varint(data, i)
            if i + length > len(data):
                raise ValueError("truncated field")
            value, i = data[i:i + length], i + length
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError("unsupported wire type %d" % wire)
        yield number, wire, value


def _digest(data):
    """(hash, size) of an REAPI Digest message."""
    hash_, size = "", 0
    for number, wire, value in _fields(data):
        if number == 1 and wire == 2:
            hash_ = value.decode("ascii")
        elif number == 2 and wire == 0:
            size = value
    return hash_, size


def action_result_outputs(data):
    """[(output path, hash, size)] of the output files, stdout and stderr of an REAPI ActionResult message."""
    out = []
    for number, wire, value in _fields(data):
        if wire != 2:
            continue
        if number == 2:  # OutputFile: path = 1, digest = 2
            path, digest = "", ("", 0)
            for n, w, v in _fields(value):
                if n == 1 and w == 2:
                    path = v.decode("utf-8", "replace")
                elif n == 2 and w == 2:
                    digest = _digest(v)
            out.append((path,) + digest)
        elif number == 3:  # OutputDirectory: path = 1, tree_digest = 3
            path, digest = "", ("", 0)
            for n, w, v in _fields(value):
                if n == 1 and w == 2:
                    path = v.decode("utf-8", "replace")
                elif n == 3 and w == 2:
                    digest = _digest(v)
            out.append((path + " (its tree)",) + digest)
        elif number in (6, 8):  # stdout_digest, stderr_digest
            out.append(("(%s of an action)" % ("stdout" if number == 6 else "stderr"),) + _digest(value))
    return out


def _annotate(root, bad):
    """Fills in, from the action results that name each bad blob, the outputs it was and the size it should have."""
    by_hash = {b.expected: b for b in bad}
    for ac in [os.path.join(root, "ac")] + [os.path.join(root, n, "ac") for n in _NAMED_FUNCTIONS]:
        if not os.path.isdir(ac):
            continue
        for dirpath, _, files in os.walk(ac):
            for name in files:
                try:
                    with open(os.path.join(dirpath, name), "rb") as f:
                        outputs = action_result_outputs(f.read())
                except (OSError, ValueError, UnicodeDecodeError):
                    continue  # not an action result this parser reads: reporting only
                for path, hash_, size in outputs:
                    b = by_hash.get(hash_)
                    if b is not None:
                        if path not in b.outputs:
                            b.outputs.append(path)
                        if size not in b.expected_sizes:
                            b.expected_sizes.append(size)


def repair(root, dry_run=False, jobs=4, before_remove=None):
    """Checks every blob of the disk cache at `root`; removes (unless dry_run) those that do not match their name.

    Args:
      root: the cache directory.
      dry_run: only report.
      jobs: files hashed at once.
      before_remove: called before each removal (tests use it to race a writer).

    Returns:
      A Report.
    """
    root = os.path.abspath(root)
    report = Report(root=root)
    start = time.monotonic()
    found, report.skipped = blobs(root)

    def check(item):
        rel, algorithm = item
        try:
            return rel, algorithm, _hash_file(os.path.join(root, rel), algorithm), None
        except FileNotFoundError:
            return rel, algorithm, None, None  # removed meanwhile (GC): nothing to check
        except OSError as e:
            return rel, algorithm, None, "%s: %s" % (rel, e.strerror or e)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for rel, algorithm, result, error in pool.map(check, found):
            if error:
                report.errors.append(error)
                continue
            if result is None:
                continue
            actual, size = result
            report.checked += 1
            report.bytes += size
            expected = os.path.basename(rel)
            if actual != expected:
                report.bad.append(Bad(path=rel, expected=expected, actual=actual, size=size, algorithm=algorithm))
    if report.bad:
        _annotate(root, report.bad)
    if not dry_run:
        for bad in report.bad:
            bad.note = _remove_if_still_bad(root, bad.path, bad.algorithm, before_remove and (lambda b=bad: before_remove(b)))
            bad.removed = not bad.note
    report.seconds = time.monotonic() - start
    return report


def _size(n):
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" % (n, unit)) if unit == "bytes" else ("%.1f %s" % (n, unit))
        n /= 1024.0
    return str(n)


def format_report(report, dry_run=False):
    """The report as text for a terminal."""
    lines = ["repair_cache: %s: %d blobs (%s) checked in %.1f s" % (
        report.root, report.checked, _size(report.bytes), report.seconds)]
    if not report.bad:
        lines[0] += "; every blob matches its digest."
    else:
        verb = "would be removed (--dry_run)" if dry_run else "removed"
        lines[0] += "; %d did not match its digest:" % len(report.bad)
        for b in report.bad:
            should = (", should be %s" % " or ".join("%d bytes" % s for s in sorted(b.expected_sizes))) if b.expected_sizes else ""
            state = verb if (dry_run or b.removed) else "NOT removed: " + b.note
            lines.append("  %s: %d bytes whose digest is %s%s: %s" % (b.path, b.size, b.actual, should, state))
            for output in b.outputs:
                lines.append("      stored as %s" % output)
        if not dry_run and all(b.removed for b in report.bad):
            lines.append("Bazel now treats these blobs as missing: the next build re-runs the actions that made them "
                         "and stores them again. A Bazel server that already failed on one retries once "
                         "(--experimental_remote_cache_eviction_retries) or, without retries, fails once more.")
    for error in report.errors:
        lines.append("  could not read %s" % error)
    if report.skipped:
        lines.append("  (%d entries under cas/ are not blobs and were left alone, e.g. %s)" % (
            len(report.skipped), report.skipped[0]))
    return "\n".join(lines) + "\n"
