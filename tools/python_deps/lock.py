"""Regenerates requirements_lock.json: pure-Python wheels pinned by sha256.

Usage (any Python 3.9+, no third-party packages):
    python3 tools/python_deps/lock.py absl-py==2.5.1 protobuf==7.36.2 ...
    python3 tools/python_deps/lock.py --from-lock   # re-resolve the pinned set

Only `py3-none-any` wheels are accepted: the helper tools must run on every
execution platform (including remote workers) without a compiler.

//tools/python_deps:lock writes the lock again from what it holds (`--render`,
no network), and dev/BUILD.bazel checks it in like every generated file
(//dev:update_test, `bazel run //dev:update`).
"""

import argparse
import json
import os
import re
import sys
import urllib.request

LOCK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "requirements_lock.json")
INDEX = "https://pypi.org/pypi/{name}/json"
FILES_HOST = "https://files.pythonhosted.org/packages/"


def _canonical_url(url):
    """Maps any (possibly relative, mirror-rewritten) file URL to files.pythonhosted.org."""
    match = re.search(r"/packages/(?:packages/)?([0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{60}/[^/]+)$", url)
    if not match:
        raise SystemExit(f"lock.py: unexpected wheel URL {url!r}")
    return FILES_HOST + match.group(1)


def resolve(requirement):
    name, sep, version = requirement.partition("==")
    if not sep:
        raise SystemExit(f"lock.py: pin an exact version: {requirement!r} (name==version)")
    with urllib.request.urlopen(INDEX.format(name=name), timeout=60) as resp:
        meta = json.load(resp)
    files = meta["releases"].get(version)
    if not files:
        raise SystemExit(f"lock.py: {name} has no release {version} on PyPI")
    wheels = [f for f in files if f["filename"].endswith("-py3-none-any.whl")]
    if not wheels:
        raise SystemExit(f"lock.py: {name} {version} has no py3-none-any wheel on PyPI")
    wheel = wheels[0]
    return {
        "name": meta["info"]["name"].lower().replace("_", "-"),
        "version": version,
        "filename": wheel["filename"],
        "url": _canonical_url(wheel["url"]),
        "sha256": wheel["digests"]["sha256"],
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requirements", nargs="*", help="name==version")
    parser.add_argument("--from-lock", action="store_true", help="re-resolve the pinned set")
    parser.add_argument("--render", nargs=2, metavar=("LOCK", "OUT"), help="no network: write the lock again from what it holds")
    args = parser.parse_args(argv)
    if args.render:
        with open(args.render[0]) as f:
            _write(args.render[1], json.load(f)["packages"])
        return
    reqs = list(args.requirements)
    if args.from_lock:
        with open(LOCK) as f:
            reqs += [f"{p['name']}=={p['version']}" for p in json.load(f)["packages"]]
    if not reqs:
        parser.error("nothing to lock")
    packages = sorted((resolve(r) for r in reqs), key=lambda p: p["name"])
    _write(LOCK, packages)
    print(f"wrote {len(packages)} packages to {LOCK}")


def _write(path, packages):
    with open(path, "w") as f:
        json.dump({"packages": packages}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
