"""Regenerates cuda_rules/private/repo/cuda_debs.bzl: CUDA toolkits (and NVIDIA's libraries)
from Debian's packages, pinned by URL and sha256, per platform.

Usage (any Python 3.9+, no third-party packages; needs Debian's mirror):
    python3 tools/cuda_debs/lock.py                      # every version of DEBIAN below
    python3 tools/cuda_debs/lock.py --cache_dir=/tmp/debs  # keep the downloaded .debs

//tools/cuda_debs:table writes the table again from what it holds
(`--render`, no network), and dev/BUILD.bazel checks it in like every
generated file (//dev:update_test, `bazel run //dev:update`).

Debian's non-free section packages CUDA 12.4.1 (source package
nvidia-cuda-toolkit 12.4.1-2 in trixie): the compiler (nvidia-cuda-toolkit),
the headers and static libraries (nvidia-cuda-dev), one package per shared
library (libcudart12, libcublas12, ...), and CCCL from main (libcub-dev,
libthrust-dev, libcu++-dev). Their files live where Debian puts them
(/usr/lib/nvidia-cuda-toolkit, /usr/include, /usr/lib/<triplet>); RULES below
say where each one goes in a toolkit laid out like NVIDIA's installer (bin/,
nvvm/, include/, lib/), which is what the rules and nvcc.profile expect.

For every package the table records the .deb's URL, sha256 and size (from the
mirror's Packages index, checked against the downloaded file) and the exact
members of its data archive to extract, each with its destination: the
repository rule extracts only those (Bazel's rename_files), so nothing of
Debian's paths reaches the toolkit. Symbolic links are resolved to the file
they name.
"""

import argparse
import hashlib
import io
import lzma
import os
import re
import sys
import tarfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if __package__ in (None, ""):  # run as a plain script: import from this checkout
    sys.path.insert(0, ROOT)

from tools.starlark_table import starlark_table  # noqa: E402

TABLE = os.path.join(ROOT, "cuda_rules", "private", "repo", "cuda_debs.bzl")
MIRROR = "https://deb.debian.org/debian"

# platform -> (Debian architecture, multiarch triplet)
PLATFORMS = {"x86_64": ("amd64", "x86_64-linux-gnu"), "aarch64": ("arm64", "aarch64-linux-gnu")}

# The CUDA versions Debian packages, and where: the suite and the versions of
# the two source packages (the toolkit, and CCCL in main).
DEBIAN = {
    "12.4": {
        "suite": "trixie",
        "toolkit_source": ("nvidia-cuda-toolkit", "12.4.1-2"),
        "cccl_source": ("cccl", "2.3.2-2"),
        # The shared runtime and libNVVM (for -dlto) carry their soname in the package name.
        "cudart": "libcudart12",
        "nvvm": "libnvvm4",
    },
}

# What the toolkit takes from each package: (package key, member regex, destination).
# "{triplet}" is the platform's multiarch directory. Package keys "cudart"/"nvvm"
# stand for the version's package names above.
TOOLKIT_RULES = [
    ("nvidia-cuda-toolkit", r"usr/lib/nvidia-cuda-toolkit/bin/nvcc", "bin/nvcc"),
    ("nvidia-cuda-toolkit", r"usr/bin/(cudafe\+\+|ptxas|fatbinary|nvlink|bin2c|__nvcc_device_query)", r"bin/\1"),
    ("nvidia-cuda-toolkit", r"usr/lib/nvidia-cuda-toolkit/bin/crt/(.+)", r"bin/crt/\1"),
    ("nvidia-cuda-toolkit", r"usr/lib/nvidia-cuda-toolkit/bin/cicc", "nvvm/bin/cicc"),
    ("nvidia-cuda-toolkit", r"usr/lib/nvidia-cuda-toolkit/libdevice/(.+)", r"nvvm/libdevice/\1"),
    ("nvidia-cuda-toolkit", r"usr/include/nvvm\.h", "nvvm/include/nvvm.h"),
    ("nvidia-cuda-dev", r"usr/include/(.+)", r"include/\1"),
    ("nvidia-cuda-dev", r"usr/lib/{triplet}/(libcudart_static\.a|libcudadevrt\.a|libculibos\.a|libcufilt\.a)", r"lib/\1"),
    ("cudart", r"usr/lib/{triplet}/(libcudart\.so\.[0-9]+)", r"lib/\1"),
    ("nvvm", r"usr/lib/{triplet}/libnvvm\.so\.[0-9]+", "nvvm/lib64/libnvvm.so"),
    ("libnvidia-ml-dev", r"usr/include/(nvml\.h)", r"include/\1"),
]

# Packages taken whole from one directory (CCCL: only headers under /usr/include):
# extracted with a strip prefix into a directory instead of file by file.
TOOLKIT_PREFIX_PACKAGES = {
    "libcu++-dev": ("usr/include", "include"),
    "libcub-dev": ("usr/include", "include"),
    "libthrust-dev": ("usr/include", "include"),
}

# What every toolkit must have after extraction (checked here and by the repository rule).
TOOLKIT_REQUIRED = [
    "bin/nvcc",
    "bin/cudafe++",
    "bin/ptxas",
    "bin/fatbinary",
    "bin/nvlink",
    "bin/crt/link.stub",
    "nvvm/bin/cicc",
    "nvvm/libdevice/libdevice.10.bc",
    "nvvm/lib64/libnvvm.so",
    "include/cuda_runtime.h",
    "include/crt/host_config.h",
    "include/cub/cub.cuh",
    "include/thrust/version.h",
    "include/cuda/std/version",
    "include/nvml.h",
    "lib/libcudart_static.a",
    "lib/libcudadevrt.a",
]

# The in-toolkit components of components.bzl ("toolkit": "yes") that this layout holds:
# NVTX 3 and the profiler API's headers (nvidia-cuda-dev), nvml.h, nv_decode.h.
TOOLKIT_COMPONENTS = ["cuxxfilt", "nvml", "nvtx", "profiler_api"]

# NVIDIA's libraries (components.bzl keys) as Debian packages: their shared
# libraries go to lib/ (the shortest name of each, e.g. libcublas.so.12); their
# headers are nvidia-cuda-dev's, in the toolkit (CUPTI's come from libcupti-dev).
# "{v}" is the CUDA version. Components not listed (cuDNN, NCCL, nvPTXCompiler's
# static library) are not available for the Debian toolkit.
LIBRARY_PACKAGES = {
    "cublas": ["libcublas12", "libcublaslt12"],
    "cufft": ["libcufft11", "libcufftw11"],
    "cupti": ["libcupti12", "libcupti-dev"],
    "curand": ["libcurand10"],
    "cusolver": ["libcusolver11", "libcusolvermg11"],
    "cusparse": ["libcusparse12"],
    "npp": ["libnppc12", "libnppial12", "libnppicc12", "libnppidei12", "libnppif12", "libnppig12", "libnppim12",
            "libnppist12", "libnppisu12", "libnppitc12", "libnpps12"],
    "nvjitlink": ["libnvjitlink12"],
    "nvjpeg": ["libnvjpeg12"],
    "nvrtc": ["libnvrtc12", "libnvrtc-builtins{v}"],
}

LIBRARY_RULES = [
    (None, r"usr/lib/{triplet}/(lib[^/]+\.so(\.[0-9.]+)?)", r"lib/\1"),
    ("libcupti-dev", r"usr/include/(.+)", r"include/\1"),
]


class LockError(Exception):
    pass


def parse_packages(text):
    """{package: {field: value}} of a Packages index (the newest version where one is listed twice)."""
    out = {}
    for block in text.split("\n\n"):
        fields = {}
        key = None
        for line in block.splitlines():
            if line.startswith((" ", "\t")) and key:
                fields[key] += "\n" + line.strip()
                continue
            key, _, value = line.partition(":")
            fields[key] = value.strip()
        if "Package" in fields:
            out.setdefault(fields["Package"], []).append(fields)
    return out


def source_of(fields):
    """(source package, source version) of a binary package's entry."""
    source = fields.get("Source", fields["Package"])
    match = re.fullmatch(r"(\S+)(?: \((\S+)\))?", source)
    name, version = match.group(1), match.group(2)
    if version is None:
        version = re.sub(r"^[0-9]+:", "", fields["Version"])
    return name, version


def pick(index, package, source):
    """The entry of `package` built from `source` (name, version)."""
    candidates = [f for f in index.get(package, []) if source_of(f) == source]
    if not candidates:
        have = ", ".join("%s (source %s %s)" % ((f["Version"],) + source_of(f)) for f in index.get(package, [])) or "none"
        raise LockError("%s of source %s %s is not in the index (it has: %s)" % (package, source[0], source[1], have))
    return candidates[0]


def deb_members(data):
    """(name of the data archive, {member path: (kind, link target)}) of a .deb's bytes.

    kind is "file", "symlink", "hardlink" or "dir"; paths lose the leading "./".
    """
    if not data.startswith(b"!<arch>\n"):
        raise LockError("not a Debian package (no ar header)")
    pos = 8
    while pos < len(data):
        header = data[pos:pos + 60]
        name = header[:16].decode().strip().rstrip("/")
        size = int(header[48:58].decode().strip())
        body = data[pos + 60:pos + 60 + size]
        pos += 60 + size + (size % 2)
        if name.startswith("data.tar"):
            return name, tar_members(name, body)
    raise LockError("no data.tar member in the package")


def tar_members(name, body):
    if name.endswith(".zst"):
        raise LockError("data.tar.zst: not supported by this tool (Bazel reads it; add zstd support here)")
    members = {}
    mode = {"xz": "r|xz", "gz": "r|gz", "bz2": "r|bz2", "tar": "r|"}[name.rsplit(".", 1)[-1]]
    # Streamed: the headers are read, the contents skipped (nvidia-cuda-dev unpacks to 2.5 GB).
    with tarfile.open(fileobj=io.BytesIO(body), mode=mode) as tar:
        for info in tar:
            path = info.name[2:] if info.name.startswith("./") else info.name
            if info.issym():
                members[path] = ("symlink", info.linkname)
            elif info.islnk():
                target = info.linkname[2:] if info.linkname.startswith("./") else info.linkname
                members[path] = ("hardlink", target)
            elif info.isdir():
                members[path] = ("dir", None)
            else:
                members[path] = ("file", None)
    return members


def resolve(members, path, seen=()):
    """The regular file a member names, following symbolic and hard links; None if it leaves the package."""
    if path in seen:
        raise LockError("symlink loop at " + path)
    kind, target = members.get(path, (None, None))
    if kind == "file":
        return path
    if kind == "symlink":
        if target.startswith("/"):
            nxt = target[1:]
        else:
            nxt = os.path.normpath(os.path.join(os.path.dirname(path), target))
        return resolve(members, nxt, seen + (path,))
    if kind == "hardlink":
        return resolve(members, target, seen + (path,))
    return None


def map_files(package, members, rules, triplet, dangling_ok=False):
    """{archive member: destination} of one package, by `rules` [(regex, destination template)].

    A member matched by a rule that is a link is replaced by the file it names
    (with dangling_ok, a link to a file of another package is left out: the
    development package's libcupti.so names libcupti12's file).
    When several names of one file match (libcublas.so.12 and libcublas.so.12.4.5.8),
    the shortest destination wins, so each file is extracted once.
    """
    chosen = {}  # real member -> destination
    for path in sorted(members):
        if members[path][0] == "dir":
            continue
        for regex, dest in rules:
            match = re.fullmatch(regex.format(triplet=re.escape(triplet)), path)
            if not match:
                continue
            real = resolve(members, path)
            if real is None and dangling_ok:
                break
            if real is None:
                raise LockError("%s: %s is a link to %r, which the package does not hold" % (package, path, members[path][1]))
            target = match.expand(dest)
            if real not in chosen or (len(target), target) < (len(chosen[real]), chosen[real]):
                chosen[real] = target
            break
    return {"./" + real: dest for real, dest in sorted(chosen.items())}


class Mirror:
    def __init__(self, base, cache_dir):
        self.base = base.rstrip("/")
        self.cache_dir = cache_dir
        self._indices = {}

    def index(self, suite, component, arch):
        key = (suite, component, arch)
        if key not in self._indices:
            url = "%s/dists/%s/%s/binary-%s/Packages.xz" % (self.base, suite, component, arch)
            with urllib.request.urlopen(url, timeout=120) as resp:
                self._indices[key] = parse_packages(lzma.decompress(resp.read()).decode("utf-8", "replace"))
        return self._indices[key]

    def deb(self, fields):
        """The .deb's bytes, checked against the index's size and sha256."""
        filename = os.path.basename(fields["Filename"])
        cached = os.path.join(self.cache_dir, filename) if self.cache_dir else None
        if cached and os.path.exists(cached):
            with open(cached, "rb") as f:
                data = f.read()
        else:
            with urllib.request.urlopen(self.base + "/" + fields["Filename"], timeout=600) as resp:
                data = resp.read()
            if cached:
                os.makedirs(self.cache_dir, exist_ok=True)
                with open(cached + ".part", "wb") as f:
                    f.write(data)
                os.replace(cached + ".part", cached)
        if len(data) != int(fields["Size"]) or hashlib.sha256(data).hexdigest() != fields["SHA256"]:
            raise LockError("%s does not match the index's size and sha256" % filename)
        return data


def _entry(mirror, fields, files=None, strip_prefix=None, output=None):
    entry = {
        "package": fields["Package"],
        "version": fields["Version"],
        "filename": os.path.basename(fields["Filename"]),
        "url": mirror.base + "/" + fields["Filename"],
        "sha256": fields["SHA256"],
        "size": int(fields["Size"]),
        "type": "deb",
    }
    if files is not None:
        entry["files"] = files
    else:
        entry["strip_prefix"] = strip_prefix
        entry["output"] = output
    return entry


def prefix_files(members, strip_prefix, output):
    """The destinations a whole-directory extraction gives (files and links under strip_prefix)."""
    out = {}
    for path, (kind, _) in sorted(members.items()):
        if kind != "dir" and path.startswith(strip_prefix + "/"):
            out["./" + path] = output + path[len(strip_prefix):]
    return out


def _find(mirror, suite, arch, package, source):
    for component in ("non-free", "main"):
        index = mirror.index(suite, component, arch)
        if package in index:
            return pick(index, package, source)
    raise LockError("%s is in neither main nor non-free of %s/%s" % (package, suite, arch))


def lock_toolkit(mirror, cuda, platform):
    config = DEBIAN[cuda]
    arch, triplet = PLATFORMS[platform]
    names = {"cudart": config["cudart"], "nvvm": config["nvvm"]}
    debs = []
    seen = {}
    for key in _unique([r[0] for r in TOOLKIT_RULES]) + sorted(TOOLKIT_PREFIX_PACKAGES):
        package = names.get(key, key)
        source = config["cccl_source"] if key in TOOLKIT_PREFIX_PACKAGES else config["toolkit_source"]
        fields = _find(mirror, config["suite"], arch, package, source)
        data_name, members = deb_members(mirror.deb(fields))
        if data_name != "data.tar.xz":
            raise LockError("%s: %s (the repository rule expects data.tar.xz)" % (package, data_name))
        if key in TOOLKIT_PREFIX_PACKAGES:
            strip_prefix, output = TOOLKIT_PREFIX_PACKAGES[key]
            files = prefix_files(members, strip_prefix, output)
            entry = _entry(mirror, fields, strip_prefix=strip_prefix, output=output)
        else:
            rules = [(regex, dest) for k, regex, dest in TOOLKIT_RULES if k == key]
            files = map_files(package, members, rules, triplet)
            entry = _entry(mirror, fields, files)
        for dest in files.values():
            if dest in seen:
                raise LockError("%s and %s both give %s" % (seen[dest], package, dest))
            seen[dest] = package
        debs.append(entry)
        print("  %s %-22s %-28s %4d files, %6.1f MB" % (platform, package, fields["Version"], len(files), int(fields["Size"]) / 1e6))
    missing = [p for p in TOOLKIT_REQUIRED if p not in seen]
    if missing:
        raise LockError("CUDA %s on %s: the packages give no %s" % (cuda, platform, ", ".join(missing)))
    return debs


def lock_libraries(mirror, cuda, platform):
    config = DEBIAN[cuda]
    arch, triplet = PLATFORMS[platform]
    out = {}
    for component, packages in sorted(LIBRARY_PACKAGES.items()):
        debs = []
        for package in packages:
            package = package.format(v=cuda)
            fields = _find(mirror, config["suite"], arch, package, config["toolkit_source"])
            _, members = deb_members(mirror.deb(fields))
            rules = [(regex, dest) for k, regex, dest in LIBRARY_RULES if k in (None, package)]
            files = map_files(package, members, rules, triplet, dangling_ok=True)
            if not files:
                raise LockError("%s on %s: no library or header in %s" % (component, platform, package))
            debs.append(_entry(mirror, fields, files))
        out[component] = debs
        print("  %s %-10s %s (%.0f MB)" % (platform, component, ", ".join(d["package"] for d in debs), sum(d["size"] for d in debs) / 1e6))
    return out


def _unique(items):
    out = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def lock(mirror, cuda):
    """The table entry of one CUDA version: toolkit debs and libraries per platform."""
    config = DEBIAN[cuda]
    entry = {
        "suite": config["suite"],
        "source": "%s %s" % config["toolkit_source"],
        "components": TOOLKIT_COMPONENTS,
        "debs": {},
        "libraries": {},
    }
    for platform in sorted(PLATFORMS):
        entry["debs"][platform] = lock_toolkit(mirror, cuda, platform)
        for component, debs in lock_libraries(mirror, cuda, platform).items():
            lib = entry["libraries"].setdefault(component, {
                "package": ", ".join(d["package"] for d in debs),
                "version": debs[0]["version"],
                "archives": {},
            })
            lib["archives"][platform] = debs
    nvcc = [d for d in entry["debs"]["x86_64"] if d["package"] == "nvidia-cuda-toolkit"][0]
    entry["nvcc_version"] = nvcc["version"].split("~")[0]
    return entry


def render(table):
    return (
        '"""CUDA toolkits and libraries from Debian\'s packages. Generated by tools/cuda_debs/lock.py: do not edit.\n\n'
        "Per CUDA version: the Debian suite and source package, the in-toolkit components the layout\n"
        "holds, the toolkit's .debs per platform and NVIDIA's libraries (components.bzl keys) with\n"
        "their .debs per platform. Each .deb lists the members of its data archive to extract and\n"
        "where each goes (`files`).\n"
        '"""\n\n'
        "CUDA_DEBS = " + starlark_table.render(table) + "\n"
    )


def read_table(path=TABLE):
    """CUDA_DEBS of the generated file (JSON-compatible Starlark)."""
    with open(path) as f:
        return starlark_table.read(f.read(), "CUDA_DEBS")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="*", help="CUDA versions (default: all of DEBIAN)")
    parser.add_argument("--mirror", default=MIRROR, help="Debian mirror (the URLs written are this mirror's)")
    parser.add_argument("--cache_dir", default="", help="keep downloaded .debs here and reuse them")
    parser.add_argument("--render", nargs=2, metavar=("TABLE", "OUT"), help="no network: write the table again from what it holds")
    args = parser.parse_args(argv)
    if args.render:
        with open(args.render[1], "w") as f:
            f.write(render(read_table(args.render[0])))
        return
    mirror = Mirror(args.mirror, args.cache_dir)
    table = {}
    for cuda in args.versions or sorted(DEBIAN):
        if cuda not in DEBIAN:
            parser.error("CUDA %s is not in DEBIAN (it has %s): add it there first" % (cuda, ", ".join(sorted(DEBIAN))))
        print("CUDA %s from Debian %s (%s %s)" % ((cuda, DEBIAN[cuda]["suite"]) + DEBIAN[cuda]["toolkit_source"]))
        try:
            table[cuda] = lock(mirror, cuda)
        except LockError as e:
            sys.exit("lock.py: CUDA %s: %s" % (cuda, e))
    with open(TABLE, "w") as f:
        f.write(render(table))
    print("wrote " + TABLE)


if __name__ == "__main__":
    main(sys.argv[1:])
