"""Regenerates cuda_rules/private/repo/host_gcc_debs.bzl: the hermetic host C++ toolchains
(gcc, binutils and the C library they build against; and clang, which builds against a gcc
toolchain's libraries) from Debian's packages, pinned by URL and sha256.

Usage (any Python 3.9+, no third-party packages; needs Debian's mirror):
    python3 tools/host_gcc/lock.py                        # every toolchain of TOOLCHAINS below
    python3 tools/host_gcc/lock.py --cache_dir=/tmp/debs  # keep the downloaded .debs
    python3 tools/host_gcc/lock.py clang22                # one toolchain; the others stay as they are

//tools/host_gcc:table writes the table again from what it holds (`--render`,
no network), and dev/BUILD.bazel checks it in like every generated file.

A toolchain is the dependency closure (Depends and Pre-Depends, first
alternatives) of a few root packages in ONE Debian suite, so the compiler, its
libraries and the C library it runs on and links against were built together
(docs/toolkits.md, "The hermetic host compiler"). The repository rule unpacks
every package whole into one root directory. The compiler's programs run with
that root's own dynamic loader and libraries, so they need nothing from the
machine but a Linux kernel; the same root is the --sysroot of every compile and
link, so a binary needs the suite's glibc or newer, nothing else.

A clang toolchain (CLANG_TOOLCHAINS) is two roots: the compiler's closure from
its own suite (clang, its libraries and the C library it runs on, unpacked into
clang/), and a gcc toolchain of TOOLCHAINS as the sysroot it compiles and links
against (libstdc++, glibc, binutils' ld). So the glibc floor of what it builds
is the gcc toolchain's, not the newer suite's.
"""

import argparse
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if __package__ in (None, ""):  # run as a plain script: import from this checkout
    sys.path.insert(0, ROOT)

from tools.cuda_debs import lock as debs  # noqa: E402
from tools.starlark_table import starlark_table  # noqa: E402

TABLE = os.path.join(ROOT, "cuda_rules", "private", "repo", "host_gcc_debs.bzl")
MIRROR = "https://deb.debian.org/debian"
# Where a suite's files stay once it leaves the mirror (bullseye's long-term support ends in 2026).
ARCHIVE = "https://archive.debian.org/debian"
# Where a stable suite's files stay once a point release supersedes them (they
# leave the mirror then): Debian's snapshot archive, as of the lock's time.
SNAPSHOT = "https://snapshot.debian.org/archive/debian/{timestamp}"

# platform -> Debian's architecture, the GNU triplet, and the dynamic loader (relative to the root).
PLATFORMS = {
    "x86_64": ("amd64", "x86_64-linux-gnu", "lib64/ld-linux-x86-64.so.2"),
    "aarch64": ("arm64", "aarch64-linux-gnu", "lib/ld-linux-aarch64.so.1"),
}

# name -> the suite, the gcc major, the root packages, and packages of the
# closure left out (ONC RPC's headers and Kerberos, which libc6-dev pulls in
# through libnsl-dev; no C++ or CUDA build includes them).
TOOLCHAINS = {
    "gcc10": {
        "suite": "bullseye",
        "gcc": "10",
        "roots": ["g++-10", "binutils", "libc6-dev"],
        "left_out": ["libnsl-dev", "libtirpc-dev", "rpcsvc-proto"],
        # nvcc accepts gcc 10 as host compiler from CUDA 11.1 on; 12.4 refuses gcc > 13.
        "toolkits": ["12.4", "13.0", "13.5"],
    },
}

# name -> the suite of the compiler, the clang major, the root packages, the
# packages of the closure left out (the suite's own C and C++ libraries to
# build against, binutils and the linker plugin: the sysroot toolchain gives
# those), the gcc toolchain (TOOLCHAINS) that is its sysroot, and the CUDA
# versions it compiles in clang mode (compile/clang.bzl's CLANG_CUDA_PAIRS).
CLANG_TOOLCHAINS = {
    "clang22": {
        "suite": "trixie",
        "clang": "22",
        # The compiler and its resource directory (the CUDA wrapper headers).
        "roots": ["clang-22", "libclang-common-22-dev"],
        "left_out": ["binutils", "libc6-dev", "libclang1-22", "libgcc-14-dev", "libobjc-14-dev", "libstdc++-14-dev", "llvm-22-linker-tools"],
        "sysroot": "gcc10",
        "toolkits": ["13.0"],
    },
}

# What every clang root must hold ({clang}: the major, {loader}: where the suite's libc6 puts it).
REQUIRED_CLANG = [
    "usr/lib/llvm-{clang}/bin/clang",
    "usr/lib/llvm-{clang}/lib/clang/{clang}/include/__clang_cuda_runtime_wrapper.h",
    "usr/lib/llvm-{clang}/lib/clang/{clang}/include/cuda_wrappers/new",
    "usr/lib/{triplet}/libc.so.6",
    "{loader}",
]

# What every toolchain root must hold after extraction ({gcc}: the major, {triplet} and {loader}: the platform's).
REQUIRED = [
    "usr/bin/{triplet}-gcc-{gcc}",
    "usr/bin/{triplet}-g++-{gcc}",
    "usr/bin/{triplet}-cpp-{gcc}",
    "usr/bin/{triplet}-as",
    "usr/bin/{triplet}-ld.bfd",
    "usr/bin/{triplet}-ar",
    "usr/lib/gcc/{triplet}/{gcc}/cc1",
    "usr/lib/gcc/{triplet}/{gcc}/cc1plus",
    "usr/lib/gcc/{triplet}/{gcc}/collect2",
    "usr/lib/gcc/{triplet}/{gcc}/include/stddef.h",
    "usr/include/c++/{gcc}/vector",
    "usr/include/{triplet}/c++/{gcc}/bits/c++config.h",
    "usr/include/stdlib.h",
    "usr/include/{triplet}/bits/libc-header-start.h",
    "usr/include/linux/limits.h",
    "usr/lib/{triplet}/crt1.o",
    "usr/lib/{triplet}/libc_nonshared.a",
    "lib/{triplet}/libc.so.6",
    "{loader}",
]


def closure(index, roots, left_out):
    """The packages `roots` need (Depends and Pre-Depends, first alternative each), sorted."""
    seen = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen or name in left_out:
            continue
        if name not in index:
            raise debs.LockError("%s is not in the index" % name)
        seen.add(name)
        fields = index[name][0]
        for field in ("Pre-Depends", "Depends"):
            for alternatives in fields.get(field, "").split(","):
                first = alternatives.split("|")[0].strip()
                if first:
                    stack.append(re.split(r"[ :(]", first)[0])
    return sorted(seen)


def lock_platform(mirror, config, platform, required, fallback=ARCHIVE, output="root"):
    """(the .debs of one platform, where its libc6 puts the dynamic loader).

    `required`: paths ({triplet} and {loader} filled in here) that must be among their files.
    """
    arch, triplet, loader = PLATFORMS[platform]
    index = mirror.index(config["suite"], "main", arch)
    entries = []
    held = set()
    for name in closure(index, config["roots"], set(config["left_out"])):
        fields = index[name][0]
        data_name, members = debs.deb_members(mirror.deb(fields))
        if data_name != "data.tar.xz":
            raise debs.LockError("%s: %s (the repository rule expects data.tar.xz)" % (name, data_name))
        held.update(p for p, (kind, _) in members.items() if kind != "dir")
        entries.append({
            "package": name,
            "version": fields["Version"],
            "filename": os.path.basename(fields["Filename"]),
            "urls": [mirror.base + "/" + fields["Filename"], fallback + "/" + fields["Filename"]],
            "sha256": fields["SHA256"],
            "size": int(fields["Size"]),
            "type": "deb",
            "output": output,
        })
        print("  %s %-28s %-24s %6.1f MB" % (platform, name, fields["Version"], int(fields["Size"]) / 1e6))
    loader = suite_loader(held, loader)
    missing = [p for p in (r.format(triplet=triplet, loader=loader) for r in required) if p not in held]
    if missing:
        raise debs.LockError("%s: the packages give no %s" % (platform, ", ".join(missing)))
    return entries, loader


def suite_loader(held, loader):
    """Where a suite's libc6 puts the dynamic loader: `loader`, or under usr/ (merged /usr, Debian 12 on)."""
    return loader if loader in held else "usr/" + loader


def lock(mirror, name):
    config = TOOLCHAINS[name]
    entry = {
        "suite": config["suite"],
        "gcc": config["gcc"],
        "toolkits": config["toolkits"],
        "triplets": {p: t for p, (_, t, _) in PLATFORMS.items()},
        "loaders": {},
        "debs": {},
    }
    required = [p.replace("{gcc}", config["gcc"]) for p in REQUIRED]
    for platform in sorted(PLATFORMS):
        entry["debs"][platform], entry["loaders"][platform] = lock_platform(mirror, config, platform, required)
    versions = {d["package"]: d["version"] for d in entry["debs"]["x86_64"]}
    entry["gcc_version"] = versions["gcc-" + config["gcc"]]
    entry["glibc_version"] = versions["libc6"]
    entry["glibc"] = ".".join(versions["libc6"].split("-")[0].split(".")[:2])
    entry["binutils_version"] = versions["binutils"]
    return entry


def lock_clang(mirror, name, timestamp):
    """A CLANG_TOOLCHAINS entry: the compiler's .debs (into clang/) and where they run from."""
    config = CLANG_TOOLCHAINS[name]
    required = [p.replace("{clang}", config["clang"]) for p in REQUIRED_CLANG]
    entry = {
        "suite": config["suite"],
        "clang": config["clang"],
        "sysroot": config["sysroot"],
        "toolkits": config["toolkits"],
        "snapshot": timestamp,
        "triplets": {p: t for p, (_, t, _) in PLATFORMS.items()},
        "loaders": {},
        "debs": {},
    }
    fallback = SNAPSHOT.format(timestamp=timestamp)
    for platform in sorted(PLATFORMS):
        entry["debs"][platform], entry["loaders"][platform] = lock_platform(
            mirror, config, platform, required, fallback=fallback, output="clang"
        )
    versions = {d["package"]: d["version"] for d in entry["debs"]["x86_64"]}
    entry["clang_version"] = versions["clang-" + config["clang"]]
    entry["glibc_version"] = versions["libc6"]
    return entry


def render(table):
    return (
        '"""Hermetic host C++ toolchains from Debian\'s packages. Generated by tools/host_gcc/lock.py: do not edit.\n\n'
        "Per toolchain: the Debian suite, the gcc major and the versions of gcc, glibc and binutils,\n"
        "the CUDA versions whose nvcc accepts it, and per platform every .deb of the closure, each\n"
        "unpacked whole into the repository's root/ (cuda_rules/private/repo/host_gcc.bzl).\n"
        '"""\n\n'
        "HOST_GCC = " + starlark_table.render({k: v for k, v in table.items() if k in TOOLCHAINS}) + "\n\n"
        "# Per clang toolchain: its suite, the clang major and version, the gcc toolchain above that is\n"
        "# its sysroot, the CUDA versions it compiles, the snapshot.debian.org time its fallback URLs\n"
        "# name, and per platform the .debs of the compiler's closure, unpacked into clang/.\n"
        "HOST_CLANG = " + starlark_table.render({k: v for k, v in table.items() if k in CLANG_TOOLCHAINS}) + "\n"
    )


def read_table(path=TABLE):
    """HOST_GCC and HOST_CLANG of the generated file, as one dict (JSON-compatible Starlark)."""
    with open(path) as f:
        text = f.read()
    table = starlark_table.read(text, "HOST_GCC")
    if "\nHOST_CLANG = " in text:
        table.update(starlark_table.read(text, "HOST_CLANG"))
    return table


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="toolchains (default: all of TOOLCHAINS)")
    parser.add_argument("--mirror", default=MIRROR, help="Debian mirror (the URLs written are this mirror's, then the archive's)")
    parser.add_argument("--cache_dir", default="", help="keep downloaded .debs here and reuse them")
    parser.add_argument("--render", nargs=2, metavar=("TABLE", "OUT"), help="no network: write the table again from what it holds")
    args = parser.parse_args(argv)
    if args.render:
        with open(args.render[1], "w") as f:
            f.write(render(read_table(args.render[0])))
        return
    mirror = debs.Mirror(args.mirror, args.cache_dir)
    known = sorted(TOOLCHAINS) + sorted(CLANG_TOOLCHAINS)
    # The toolchains not named keep their entries.
    table = {k: v for k, v in read_table().items() if k in known} if os.path.exists(TABLE) else {}
    timestamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for name in args.names or known:
        if name not in known:
            parser.error("%s is not in TOOLCHAINS or CLANG_TOOLCHAINS (they have %s)" % (name, ", ".join(known)))
        config = TOOLCHAINS.get(name) or CLANG_TOOLCHAINS[name]
        print("%s from Debian %s" % (name, config["suite"]))
        try:
            table[name] = lock(mirror, name) if name in TOOLCHAINS else lock_clang(mirror, name, timestamp)
        except debs.LockError as e:
            sys.exit("lock.py: %s: %s" % (name, e))
    with open(TABLE, "w") as f:
        f.write(render(table))
    print("wrote " + TABLE)


if __name__ == "__main__":
    main(sys.argv[1:])
