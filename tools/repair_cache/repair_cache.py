"""Checks a Bazel disk cache and removes every blob whose bytes do not match its digest.

  bazel run @rules_cuda_stages//tools/repair_cache -- DISK_CACHE [DISK_CACHE...] [--dry_run]

DISK_CACHE is the directory given to --disk_cache (or a Bazel RemoteWorker's
--cas_path). Safe while builds use the cache: it only removes damaged blobs,
as Bazel's own garbage collection removes entries, and Bazel re-runs the
actions that made them (docs/remote.md, "A damaged cache").

Exit status: 0 when the cache holds no damaged blob any more (none found, or
all removed); 1 when one is left (--dry_run, or it could not be removed or
read); 2 for a directory that is not a disk cache.
"""

import os
import sys

from absl import app
from absl import flags

from tools.repair_cache import repair_cache_lib

FLAGS = flags.FLAGS
flags.DEFINE_bool("dry_run", False, "Report damaged blobs, remove nothing (exit 1 if there is one).")
flags.DEFINE_integer("jobs", 4, "Blobs hashed at once.")


def _path(p):
    p = os.path.expanduser(p)
    base = os.environ.get("BUILD_WORKING_DIRECTORY", "")
    return p if os.path.isabs(p) or not base else os.path.join(base, p)


def main(argv):
    if len(argv) < 2:
        raise app.UsageError("name the disk cache: repair_cache DISK_CACHE [DISK_CACHE...] [--dry_run]")
    status = 0
    for root in argv[1:]:
        try:
            report = repair_cache_lib.repair(_path(root), dry_run=FLAGS.dry_run, jobs=FLAGS.jobs)
        except repair_cache_lib.CacheError as e:
            print("repair_cache: error: %s" % e, file=sys.stderr)
            return 2
        sys.stdout.write(repair_cache_lib.format_report(report, dry_run=FLAGS.dry_run))
        if not report.ok or (FLAGS.dry_run and report.bad):
            status = 1
    return status


if __name__ == "__main__":
    app.run(main)
