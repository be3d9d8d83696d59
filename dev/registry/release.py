#!/usr/bin/env python3
"""Makes a release of rules_cuda_stages: the source archive and its registry entry.

    dev/release VERSION OUTDIR [--commit=REF | --checkout=DIR] [--url=URL]

writes
    OUTDIR/<repo>-v<VERSION>.tar.gz                       the release archive (upload it to the release)
    OUTDIR/modules/rules_cuda_stages/<VERSION>/MODULE.bazel, source.json, presubmit.yml
    OUTDIR/modules/rules_cuda_stages/metadata.json        (the version added to it)

OUTDIR may be a clone of a registry (the BCR or a mirror of it): the entry goes
where it belongs and metadata.json keeps its other versions. The archive is the
same bytes for the same commit; source.json holds its sha256 integrity and,
unless --url says otherwise, the release URL from .bcr/source.template.json.
Without --commit or --checkout the archive is made from HEAD, never from
uncommitted changes. docs/release.md describes the whole process.
"""

import argparse
import os
import sys

# Its own directory first: runs with any python3 and PYTHONPATH, no package setup.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import registry_lib  # noqa: E402


def main(argv):
    parser = argparse.ArgumentParser(prog="dev/release", description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="MAJOR.MINOR.PATCH; MODULE.bazel's module(version) must say the same")
    parser.add_argument("out_dir", help="where the archive and modules/... are written")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--commit", default="HEAD", help="the commit to release (default: HEAD)")
    source.add_argument("--checkout", help="archive this checkout's files instead of a commit (tests; no git needed)")
    parser.add_argument("--url", help="the archive's download URL in source.json, e.g. a mirror's; ending in / "
                        "it names a directory and the archive's file name is appended "
                        "(default: .bcr/source.template.json's URL)")
    parser.add_argument("--mtime", type=int, default=0,
                        help="with --checkout: the members' modification time (default 0; a commit uses its own time)")
    args = parser.parse_args(argv)

    root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    try:
        if args.checkout:
            root = os.path.abspath(args.checkout)
            files = registry_lib.files_from_checkout(root)
            mtime, what = args.mtime, "checkout %s" % root
        else:
            files, mtime, sha = registry_lib.files_from_git(root, args.commit)
            what = "commit %s" % sha
        result = registry_lib.release(
            args.version, os.path.abspath(args.out_dir), files, mtime, os.path.join(root, ".bcr"), url=args.url
        )
    except registry_lib.ReleaseError as e:
        print("dev/release: error: %s" % e, file=sys.stderr)
        return 2
    size = os.path.getsize(result["archive"])
    print("rules_cuda_stages %s from %s (%d files)" % (args.version, what, len(files)))
    print("  archive:   %s (%d bytes)" % (result["archive"], size))
    print("  integrity: %s" % result["integrity"])
    print("  url:       %s" % result["url"])
    print("  entry:     %s" % result["entry"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
