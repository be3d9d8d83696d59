"""The hermetic clang toolchain: clang from one Debian suite, over a hermetic gcc toolchain's root, as a repository.

`host_clang_repository` unpacks a host_gcc_debs.bzl HOST_CLANG entry (pinned by
URL and sha256) into clang/, and the gcc toolchain it names as its sysroot
(host_gcc.bzl's unpack_host_gcc) into root/ and bin/, and writes:

- bin/clang and bin/clang++: the real clang, run with clang/'s own dynamic
  loader and libraries (the compiler's suite is newer than the sysroot's), with
  the sysroot (root/: libstdc++, glibc, crt files), its resource directory (the
  CUDA wrapper headers) and bin/ for the linker (the gcc toolchain's ld) given
  explicitly. A compile of several jobs (CUDA: the device and host sides) runs
  clang's front end as a separate process through the same wrapper, which the
  loader names as clang's argv[0]; every path stays relative to where it was
  called from (Bazel: the execution root), so outputs name no output base.
- a C++ toolchain whose files are every file it runs or reads, so they are
  inputs of every action that runs it (the .cu stages of clang mode included):
  its keys change with the compiler, and a remote executor needs no compiler.

Its binaries need the sysroot's glibc (2.31 for gcc10's Debian 11) or newer.
Selected with --@rules_cuda_stages//cuda_rules:host_toolchain=clang22, with
--@rules_cuda_stages//cuda_rules:compiler=clang (clang compiles the CUDA too):
docs/toolkits.md, "The hermetic host compiler".
"""

load(":debian_root.bzl", "make_root_standalone")
load(":host_gcc.bzl", "REGENERATE", "check_platform", "gcc_what", "unpack_host_gcc", "write_toolchain_build")
load(":host_gcc_debs.bzl", "HOST_CLANG")
load(":library_repository.bzl", "download_archives", "host_platform")

visibility(["//cuda_rules/...", "//tests/..."])

_WRAPPER = """#!/bin/sh
# Written by rules_cuda_stages (cuda_rules/private/repo/host_clang.bzl): {program} of {what},
# run with the compiler's own dynamic loader and libraries. Paths stay relative to where the
# wrapper was called from (Bazel: the execution root), so outputs name no output base.
d="${{0%/*}}"
case "$d" in
  */bin) top="${{d%/bin}}" ;;
  *) top="$d/.." ;;
esac
c="$top/clang"
case "$1" in
  # clang's front end or assembler as a process of its own (argv[0] is this wrapper).
  -cc1 | -cc1as) ;;
  *) set -- -no-canonical-prefixes -resource-dir "$c/{resource_dir}" --sysroot="$top/root" -B"$d/"{mode} "$@" ;;
esac
exec "$c/{loader}" --library-path "$c/usr/lib/{triplet}" --argv0 "$0" "$c/{real}" "$@"
"""

def _host_clang_impl(rctx):
    name = rctx.attr.toolchain
    entry = HOST_CLANG[name]
    platform = host_platform(rctx)
    what = "the hermetic clang toolchain {} (Debian {}: clang {}; sysroot: {})".format(
        name,
        entry["suite"],
        entry["clang_version"],
        gcc_what(entry["sysroot"]),
    )
    check_platform(entry, platform, what, name)
    gcc = unpack_host_gcc(rctx, entry["sysroot"], platform, what)
    download_archives(rctx, entry["debs"][platform], what, REGENERATE)
    make_root_standalone(rctx, "clang", what)
    triplet = entry["triplets"][platform]
    major = entry["clang"]
    resource_dir = "usr/lib/llvm-{v}/lib/clang/{v}".format(v = major)
    real = "usr/lib/llvm-{}/bin/clang".format(major)
    for path in [real, resource_dir + "/include/__clang_cuda_runtime_wrapper.h", entry["loaders"][platform]]:
        if not rctx.path("clang/" + path).exists:
            fail("rules_cuda_stages: {}: the packages hold no {}. Fix: regenerate the table with `{}`.".format(what, path, REGENERATE))
    for program, mode in [("clang", ""), ("clang++", " --driver-mode=g++")]:
        rctx.file("bin/" + program, _WRAPPER.format(
            program = program,
            what = what,
            resource_dir = resource_dir,
            mode = mode,
            loader = entry["loaders"][platform],
            triplet = triplet,
            real = real,
        ), executable = True)

    # Execution-root-relative: keys and command lines name no output base.
    top = "external/{}".format(rctx.path(".").basename)
    gcc_major = gcc["gcc"]
    write_toolchain_build(
        rctx,
        what = what,
        name = name,
        compiler = "clang",
        abi_version = "clang_" + major,
        driver = "bin/clang",
        runtime = [
            "bin/*",
            "clang/usr/lib/llvm-*/bin/clang",
            "clang/usr/lib/{}/*.so*".format(triplet),
            "clang/" + entry["loaders"][platform],
            "root/usr/bin/*",
            "root/lib/**",
            "root/lib64/**",
            "root/usr/lib/{}/*.so*".format(triplet),
        ],
        headers = ["clang/usr/lib/llvm-*/lib/clang/**", "root/usr/lib/gcc/**", "root/usr/include/**"],
        root = top + "/root",
        glibc = gcc["glibc"],
        builtin = [
            # What clang searches (clang -E -v): its resource directory, then the sysroot's.
            "{}/clang/{}/include".format(top, resource_dir),
            "%sysroot%/usr/include/c++/" + gcc_major,
            "%sysroot%/usr/include/{}/c++/{}".format(triplet, gcc_major),
            "%sysroot%/usr/include/c++/{}/backward".format(gcc_major),
            "%sysroot%/usr/include/" + triplet,
            "%sysroot%/usr/include",
        ],
        platform = platform,
        triplet = triplet,
        compile_flags = ["-fstack-protector", "-Wall", "-Wthread-safety", "-Wself-assign", "-fno-omit-frame-pointer"],
        cxx_flags = ["-std=c++17"],
        link_flags = ["-Wl,-no-as-needed", "-Wl,-z,relro,-z,now", "-static-libgcc"],
        unfiltered_compile_flags = [],
    )

host_clang_repository = repository_rule(
    implementation = _host_clang_impl,
    doc = "A hermetic clang from one Debian suite over a hermetic gcc toolchain's root, and a C++ toolchain (host_clang.bzl).",
    attrs = {
        "toolchain": attr.string(mandatory = True, values = sorted(HOST_CLANG), doc = "The HOST_CLANG entry of host_gcc_debs.bzl."),
    },
)
