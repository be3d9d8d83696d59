"""Regenerates the versions tables: cuda_rules/private/repo/cuda_versions.bzl
(the CUDA toolkits that `cuda.toolkit(version = ...)` can create) and
cuda_rules/private/repo/cuda_libraries.bzl (NVIDIA's libraries for each of
them: cuBLAS, cuFFT, ..., cuDNN, NCCL), as NVIDIA's PyPI wheels pinned by URL
and sha256, per platform.

Usage (any Python 3.9+, no third-party packages; needs PyPI):
    python3 tools/cuda_wheels/lock.py 13.0 13.5      # the versions to offer
    python3 tools/cuda_wheels/lock.py --add 13.4     # keep the others, add one

//tools/cuda_wheels:tables writes both tables again from what they hold
(`--render`, no network), and dev/BUILD.bazel checks them in like every
generated file: //dev:update_test fails when a table is not what this file
writes (edited by hand, or the format here changed without `bazel run
//dev:update`).

Which versions belong to CUDA X.Y is NVIDIA's word: the newest release X.Y.*
of NVIDIA's `cuda-toolkit` meta-package pins every component (nvcc, the
runtime, CCCL, cuBLAS, cuFFT, ...) with `==`; its wheel's METADATA is read.
A component it does not pin exactly (nvJitLink: `<14`) gets the newest
release X.Y.*; cuDNN and NCCL (`nvidia-cudnn-cu13`, `nvidia-nccl-cu13`: one
series per CUDA major) get their newest release. Which components exist and
what they are made of: cuda_rules/private/repo/components.bzl. CUDA 12 wheels
on PyPI hold only ptxas (no nvcc, cudafe++, cicc or fatbinary), so CUDA 12
toolkits cannot be made from them.
"""

import argparse
import io
import json
import os
import re
import sys
import urllib.request
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if __package__ in (None, ""):  # run as a plain script: import from this checkout
    sys.path.insert(0, ROOT)

from tools.starlark_table import starlark_table  # noqa: E402

TABLE = os.path.join(ROOT, "cuda_rules", "private", "repo", "cuda_versions.bzl")
LIBRARIES_TABLE = os.path.join(ROOT, "cuda_rules", "private", "repo", "cuda_libraries.bzl")
COMPONENTS = os.path.join(ROOT, "cuda_rules", "private", "repo", "components.bzl")
META_PACKAGE = "cuda-toolkit"
INDEX = "https://pypi.org/pypi/{name}/json"
FILES_HOST = "https://files.pythonhosted.org/packages/"
# What the rules need: the driver and stage tools, cicc + libdevice, the
# compiler's own headers, the runtime (headers + libcudart_static), CCCL.
PACKAGES = ["nvidia-cuda-nvcc", "nvidia-nvvm", "nvidia-cuda-crt", "nvidia-cuda-runtime", "nvidia-cuda-cccl"]
PLATFORMS = {"x86_64": "manylinux2014_x86_64", "aarch64": "manylinux2014_aarch64"}
_PLATFORM_TAGS = {"x86_64": ("x86_64",), "aarch64": ("aarch64",)}


def _canonical_url(url):
    match = re.search(r"/packages/(?:packages/)?([0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{60}/[^/]+)$", url)
    if not match:
        raise SystemExit("lock.py: unexpected wheel URL %r" % url)
    return FILES_HOST + match.group(1)


def _key(version):
    return [int(p) if p.isdigit() else -1 for p in version.split(".")]


_META_CACHE = {}


def _meta(name):
    """PyPI's JSON description of a package (all releases)."""
    if name not in _META_CACHE:
        with urllib.request.urlopen(INDEX.format(name=name), timeout=60) as resp:
            _META_CACHE[name] = json.load(resp)
    return _META_CACHE[name]


def _newest(name, releases, prefixes):
    for prefix in prefixes:
        candidates = [v for v, files in releases.items() if v.startswith(prefix) and files and re.fullmatch(r"[0-9.]+", v)]
        if candidates:
            return max(candidates, key=_key)
    raise SystemExit("lock.py: %s has no release %s on PyPI" % (name, " or ".join(p + "*" for p in prefixes)))


def _pick(name, releases, cuda):
    major, minor = cuda.split(".")
    prefixes = [cuda + "."]
    if name == "nvidia-cuda-cccl":
        prefixes.append("%s.3.%s." % (major, minor))
    return _newest(name, releases, prefixes)


def toolkit_pins(cuda):
    """NVIDIA's own list of what CUDA X.Y is made of: {package: version} pinned with == by the
    newest cuda-toolkit X.Y.* meta-package (read from its wheel's METADATA)."""
    meta = _meta(META_PACKAGE)
    release = _newest(META_PACKAGE, meta["releases"], [cuda + "."])
    wheel = [f for f in meta["releases"][release] if f["filename"].endswith(".whl")][0]
    with urllib.request.urlopen(_canonical_url(wheel["url"]), timeout=60) as resp:
        data = resp.read()
    archive = zipfile.ZipFile(io.BytesIO(data))
    metadata = archive.read([n for n in archive.namelist() if n.endswith(".dist-info/METADATA")][0]).decode()
    return release, parse_pins(metadata)


def parse_pins(metadata):
    """{package: version} of the `Requires-Dist: name==version.*` lines of a METADATA file."""
    pins = {}
    for line in metadata.splitlines():
        match = re.match(r"Requires-Dist: ([A-Za-z0-9_.-]+)\s*==\s*([0-9][0-9.]*?)(\.\*)?\s*(;|$)", line)
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def _wheels(name, version, platforms=None):
    """{platform: wheel dict} of one release, for the platforms that have a manylinux wheel."""
    out = {}
    for platform, tags in _PLATFORM_TAGS.items():
        if platforms and platform not in platforms:
            continue
        files = [f for f in _meta(name)["releases"].get(version, []) if f["filename"].endswith(".whl") and "manylinux" in f["filename"] and any(t in f["filename"] for t in tags)]
        if not files:
            continue
        f = files[0]
        out[platform] = {
            "package": name,
            "version": version,
            "filename": f["filename"],
            "url": _canonical_url(f["url"]),
            "sha256": f["digests"]["sha256"],
            "size": f["size"],
        }
    return out


def lock(cuda, pins=None):
    """The toolkit entry of CUDA X.Y: the compiler's wheels per platform."""
    entry = {"packages": {}, "wheels": {p: [] for p in PLATFORMS}}
    for name in PACKAGES:
        version = (pins or {}).get(name) or _pick(name, _meta(name)["releases"], cuda)
        entry["packages"][name] = version
        for platform, wheel in _wheels(name, version).items():
            entry["wheels"][platform].append(wheel)
    for platform in list(entry["wheels"]):
        if len(entry["wheels"][platform]) != len(PACKAGES):
            # Incomplete for this platform: leave it out, so asking for it
            # fails with a clear message rather than a broken toolkit.
            del entry["wheels"][platform]
    return entry


def read_components():
    """CUDA_COMPONENTS of components.bzl (JSON-compatible Starlark)."""
    return _read_dict(COMPONENTS, "CUDA_COMPONENTS")


def component_version(component, cuda, pins):
    """The version of one component's package for CUDA X.Y, and why."""
    major = cuda.split(".")[0]
    name = component["package"].format(major=major)
    if name in pins:
        return name, pins[name], "pinned by the meta-package"
    releases = _meta(name)["releases"]
    if "{major}" in component["package"]:
        # One series per CUDA major (cuDNN, NCCL): its newest release.
        return name, _newest(name, releases, [""]), "newest release"
    return name, _newest(name, releases, [cuda + "."]), "newest %s.* release" % cuda


def lock_libraries(cuda, release, pins, components):
    """The libraries entry of CUDA X.Y: {component: {package, version, archives: {platform: [...]}}}."""
    major = cuda.split(".")[0]
    entry = {"meta": "%s %s" % (META_PACKAGE, release), "components": {}}
    for key in sorted(components):
        component = components[key]
        name, version, why = component_version(component, cuda, pins)
        archives = {}
        for platform, wheel in _wheels(name, version).items():
            archives[platform] = [dict(wheel, strip_prefix=component["strip_prefix"].format(major=major), type="zip")]
        entry["components"][key] = {"package": name, "version": version, "archives": archives}
        sizes = ", ".join("%s %.0f MB" % (p, a[0]["size"] / 1e6) for p, a in sorted(archives.items()))
        print("  %-14s %s %s (%s; %s)" % (key, name, version, why, sizes or "no Linux wheels"))
    return entry


def _read_dict(path, name):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return starlark_table.read(f.read(), name)


def read_table(path=TABLE):
    return _read_dict(path, "CUDA_VERSIONS")


def read_libraries_table(path=LIBRARIES_TABLE):
    return _read_dict(path, "CUDA_LIBRARY_VERSIONS")


def render_table(table):
    """cuda_versions.bzl's text."""
    return (
        '"""CUDA toolkits from NVIDIA\'s PyPI wheels. Generated by tools/cuda_wheels/lock.py: do not edit."""\n\n'
        "CUDA_VERSIONS = " + starlark_table.render(table) + "\n"
    )


def render_libraries_table(table):
    """cuda_libraries.bzl's text."""
    return (
        '"""NVIDIA\'s CUDA libraries per toolkit version and platform (components.bzl says what each is).\n\n'
        "Generated by tools/cuda_wheels/lock.py: do not edit. Per CUDA version: the meta-package\n"
        "release whose pins were used, and per component its package, version and archives\n"
        "(per platform: url, sha256, strip_prefix, type).\n"
        '"""\n\n'
        "CUDA_LIBRARY_VERSIONS = " + starlark_table.render(table) + "\n"
    )


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)
    print("wrote " + path)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="*", help="CUDA versions, e.g. 13.0 13.5")
    parser.add_argument("--add", action="store_true", help="keep the versions already in the tables")
    parser.add_argument("--render", nargs=4, metavar=("VERSIONS", "LIBRARIES", "VERSIONS_OUT", "LIBRARIES_OUT"),
                        help="no network: write the two tables again from what they hold")
    args = parser.parse_args(argv)
    if args.render:
        versions, libraries, versions_out, libraries_out = args.render
        _write(versions_out, render_table(read_table(versions)))
        _write(libraries_out, render_libraries_table(read_libraries_table(libraries)))
        return
    if not args.versions:
        parser.error("name the CUDA versions to lock (e.g. 13.0 13.5)")
    table = read_table() if args.add else {}
    libraries = read_libraries_table() if args.add else {}
    components = read_components()
    for cuda in args.versions:
        if not re.fullmatch(r"[0-9]+\.[0-9]+", cuda):
            parser.error("a CUDA version is MAJOR.MINOR, not %r" % cuda)
        release, pins = toolkit_pins(cuda)
        print("CUDA %s: %s %s" % (cuda, META_PACKAGE, release))
        table[cuda] = lock(cuda, pins)
        sizes = {p: sum(w["size"] for w in ws) for p, ws in table[cuda]["wheels"].items()}
        print("  toolkit: %s; platforms %s" % (table[cuda]["packages"], {p: "%.0f MB" % (s / 1e6) for p, s in sizes.items()}))
        libraries[cuda] = lock_libraries(cuda, release, pins, components)
    _write(TABLE, render_table(table))
    _write(LIBRARIES_TABLE, render_libraries_table(libraries))


if __name__ == "__main__":
    main(sys.argv[1:])
