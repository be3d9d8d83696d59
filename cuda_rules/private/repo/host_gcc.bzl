"""The hermetic host C++ toolchain: gcc, binutils and glibc from one Debian suite, as a repository.

`host_gcc_repository` unpacks every .deb of a host_gcc_debs.bzl entry (pinned by
URL and sha256) into root/ and writes:

- bin/: one wrapper per program (gcc, g++, cpp, cc1, cc1plus, collect2, as,
  ld, ar, ...), each running the real one with root/'s own dynamic loader and
  libraries, so the compiler needs nothing of the machine but a Linux kernel: no
  compiler, no C library of a given version. The drivers find the other
  wrappers first (-B bin/) and compile and link against root/ (--sysroot).
- a C++ toolchain (rules_cc's Unix toolchain configuration) whose files are
  every file it runs or reads, so they are inputs of every action that runs it
  (the .cu stages included): its keys change with the compiler, and a remote
  executor needs no compiler of its own. Every path in its command lines is
  relative to the execution root, and the standard include directories are
  given explicitly (-nostdinc), so preprocessed files and dependency files name
  no output base.

Selected with --@rules_cuda_stages//cuda_rules:host_toolchain=gcc10
(cuda_rules/host_toolchain/BUILD.bazel registers it; docs/toolkits.md, "The
hermetic host compiler").
"""

load(":debian_root.bzl", "make_root_standalone")
load(":host_gcc_debs.bzl", "HOST_GCC")
load(":library_repository.bzl", "download_archives", "host_platform")

visibility(["//cuda_rules/...", "//tests/..."])

REGENERATE = "python3 tools/host_gcc/lock.py"

# Programs run through root/'s loader: wrapper name -> path under root/ ({t}: triplet, {v}: gcc major).
_DRIVERS = {
    "cpp": "usr/bin/{t}-cpp-{v}",
    "g++": "usr/bin/{t}-g++-{v}",
    "gcc": "usr/bin/{t}-gcc-{v}",
}
_PROGRAMS = {
    "addr2line": "usr/bin/{t}-addr2line",
    "ar": "usr/bin/{t}-ar",
    "as": "usr/bin/{t}-as",
    "c++filt": "usr/bin/{t}-c++filt",
    "cc1": "usr/lib/gcc/{t}/{v}/cc1",
    "cc1plus": "usr/lib/gcc/{t}/{v}/cc1plus",
    "collect2": "usr/lib/gcc/{t}/{v}/collect2",
    "dwp": "usr/bin/{t}-dwp",
    "gcov": "usr/bin/{t}-gcov-{v}",
    "ld": "usr/bin/{t}-ld.bfd",
    "ld.bfd": "usr/bin/{t}-ld.bfd",
    "lto-wrapper": "usr/lib/gcc/{t}/{v}/lto-wrapper",
    "lto1": "usr/lib/gcc/{t}/{v}/lto1",
    "nm": "usr/bin/{t}-nm",
    "objcopy": "usr/bin/{t}-objcopy",
    "objdump": "usr/bin/{t}-objdump",
    "ranlib": "usr/bin/{t}-ranlib",
    "readelf": "usr/bin/{t}-readelf",
    "strip": "usr/bin/{t}-strip",
}

# Bazel's target_cpu of each platform.
_TARGET_CPU = {"x86_64": "k8", "aarch64": "aarch64"}

_WRAPPER = """#!/bin/sh
# Written by rules_cuda_stages (cuda_rules/private/repo/host_gcc.bzl): {program} of {what},
# run with the toolchain's own dynamic loader and libraries. Paths stay relative to where
# the wrapper was called from (Bazel: the execution root), so outputs name no output base.
d="${{0%/*}}"
r="$d/../root"
exec "$r/{loader}" --library-path "$r/lib/{triplet}:$r/usr/lib/{triplet}" "$r/{real}"{extra} "$@"
"""

def _wrappers(rctx, entry, platform, what):
    triplet = entry["triplets"][platform]
    major = entry["gcc"]
    for name, real in _DRIVERS.items() + _PROGRAMS.items():
        real = real.format(t = triplet, v = major)
        if not rctx.path("root/" + real).exists:
            fail("rules_cuda_stages: {}: the packages hold no {}. Fix: regenerate the table with `{}`.".format(what, real, REGENERATE))

        # The drivers find the other wrappers first (-B: cc1plus, as, collect2,
        # ld), and compile and link against root/ whoever calls them.
        extra = ' -B"$d/" --sysroot="$r"' if name in _DRIVERS else ""
        rctx.file("bin/" + name, _WRAPPER.format(
            program = name,
            what = what,
            loader = entry["loaders"][platform],
            triplet = triplet,
            real = real,
            extra = extra,
        ), executable = True)

def check_platform(entry, platform, what, flag_value):
    """Fails naming the flag to drop when `entry` (a table entry) has no .debs for `platform`."""
    if platform not in entry["debs"]:
        fail(("rules_cuda_stages: {} is built for {} only, and this machine is {}. " +
              "Fix: drop --@rules_cuda_stages//cuda_rules:host_toolchain={} (the C++ toolchain Bazel finds is used).").format(
            what,
            ", ".join(sorted(entry["debs"])),
            platform,
            flag_value,
        ))

def unpack_host_gcc(rctx, name, platform, what):
    """Unpacks gcc toolchain `name` of the table into root/ and writes its wrappers into bin/.

    Args:
      rctx: the repository_ctx.
      name: the HOST_GCC entry.
      platform: host_platform(rctx).
      what: what it is, for messages.

    Returns:
      The HOST_GCC entry.
    """
    entry = HOST_GCC[name]
    download_archives(rctx, entry["debs"][platform], what, REGENERATE)
    make_root_standalone(rctx, "root", what)
    _wrappers(rctx, entry, platform, what)
    return entry

def gcc_what(name):
    """How messages name gcc toolchain `name`."""
    entry = HOST_GCC[name]
    return "the hermetic host toolchain {} (Debian {}: gcc {}, glibc {})".format(name, entry["suite"], entry["gcc_version"], entry["glibc_version"])

def _host_gcc_impl(rctx):
    name = rctx.attr.toolchain
    entry = HOST_GCC[name]
    platform = host_platform(rctx)
    what = gcc_what(name)
    check_platform(entry, platform, what, name)
    unpack_host_gcc(rctx, name, platform, what)
    triplet = entry["triplets"][platform]
    major = entry["gcc"]

    # Execution-root-relative: keys and command lines name no output base.
    root = "external/{}/root".format(rctx.path(".").basename)
    write_toolchain_build(
        rctx,
        what = what,
        name = name,
        compiler = "gcc",
        abi_version = "gcc_" + major,
        driver = "bin/gcc",
        runtime = ["bin/*", "root/usr/bin/*", "root/lib/**", "root/lib64/**", "root/usr/lib/{}/*.so*".format(triplet)],
        headers = ["root/usr/lib/gcc/**", "root/usr/include/**"],
        root = root,
        glibc = entry["glibc"],
        builtin = [
            "%sysroot%/usr/lib/gcc/{}/{}/include".format(triplet, major),
            "%sysroot%/usr/include/" + triplet,
            "%sysroot%/usr/include",
            "%sysroot%/usr/include/c++/" + major,
            "%sysroot%/usr/include/{}/c++/{}".format(triplet, major),
            "%sysroot%/usr/include/c++/{}/backward".format(major),
        ],
        platform = platform,
        triplet = triplet,
        # The standard include directories given explicitly (relative: gcc names its own by absolute path).
        compile_flags = ["-fstack-protector", "-Wall", "-fno-omit-frame-pointer", "-nostdinc"] + [
            x
            for d in ["usr/lib/gcc/{}/{}/include".format(triplet, major), "usr/include/" + triplet, "usr/include"]
            for x in ["-idirafter", root + "/" + d]
        ],
        cxx_flags = ["-std=c++17"] + [
            x
            for d in ["usr/include/c++/" + major, "usr/include/{}/c++/{}".format(triplet, major), "usr/include/c++/{}/backward".format(major)]
            for x in ["-isystem", root + "/" + d]
        ],
        link_flags = ["-Wl,-no-as-needed", "-Wl,-z,relro,-z,now", "-pass-exit-codes", "-static-libgcc"],
        unfiltered_compile_flags = ["-fno-canonical-system-headers"],
    )

def write_toolchain_build(
        rctx,
        what,
        name,
        compiler,
        abi_version,
        driver,
        runtime,
        headers,
        root,
        glibc,
        builtin,
        platform,
        triplet,
        compile_flags,
        cxx_flags,
        link_flags,
        unfiltered_compile_flags):
    """Writes the repository's BUILD.bazel: a C++ toolchain (rules_cc's Unix configuration) over its files.

    Args:
      rctx: the repository_ctx.
      what: what it is, for the file's comment.
      name: the table entry (the toolchain's identifier is rules_cuda_stages_host_<name>).
      compiler: "gcc" or "clang".
      abi_version: e.g. "gcc_10".
      driver: the wrapper the C++ rules run to compile and link (bin/gcc, bin/clang).
      runtime: globs of what the programs load, and the wrappers.
      headers: globs of the headers and the compiler's own files, besides runtime.
      root: the sysroot, execution-root-relative.
      glibc: the sysroot's glibc version, e.g. "2.31".
      builtin: the built-in include directories.
      platform: host_platform(rctx).
      triplet: the platform's GNU triplet.
      compile_flags: compile flags.
      cxx_flags: C++ compile flags.
      link_flags: link flags.
      unfiltered_compile_flags: the compiler's own flags ahead of the reproducibility ones (no __DATE__, ...).
    """
    rctx.symlink(Label("@rules_cc//cc/private/toolchain:unix_cc_toolchain_config.bzl"), "cc_toolchain_config.bzl")
    rctx.file("BUILD.bazel", _BUILD.format(
        what = what,
        name = name,
        compiler = compiler,
        abi_version = abi_version,
        driver = driver,
        runtime = repr(runtime),
        headers = repr(headers),
        root = repr(root),
        glibc = glibc,
        builtin = repr(builtin),
        target_cpu = _TARGET_CPU[platform],
        triplet = triplet,
        compile_flags = repr(compile_flags),
        cxx_flags = repr(cxx_flags),
        link_flags = repr(link_flags),
        unfiltered_compile_flags = repr(unfiltered_compile_flags + [
            "-Wno-builtin-macro-redefined",
            "-D__DATE__=\"redacted\"",
            "-D__TIMESTAMP__=\"redacted\"",
            "-D__TIME__=\"redacted\"",
        ]),
    ))

_BUILD = """# Written by rules_cuda_stages (cuda_rules/private/repo/host_gcc.bzl, write_toolchain_build): {what}.
load("@rules_cc//cc:defs.bzl", "cc_toolchain")
load(":cc_toolchain_config.bzl", "cc_toolchain_config")

package(default_visibility = ["//visibility:public"])

# What the programs load (their loader and libraries) and the wrappers.
filegroup(
    name = "runtime",
    srcs = glob({runtime}),
)

filegroup(
    name = "compiler_files",
    srcs = [":runtime"] + glob({headers}),
)

filegroup(
    name = "linker_files",
    srcs = [":compiler_files"] + glob(["root/usr/lib/**"]),
)

filegroup(
    name = "all_files",
    srcs = [":linker_files"],
)

cc_toolchain_config(
    name = "config",
    cpu = "{target_cpu}",
    compiler = "{compiler}",
    toolchain_identifier = "rules_cuda_stages_host_{name}",
    host_system_name = "local",
    target_system_name = "{triplet}",
    target_libc = "glibc_{glibc}",
    abi_version = "{abi_version}",
    abi_libc_version = "glibc_{glibc}",
    builtin_sysroot = {root},
    cxx_builtin_include_directories = {builtin},
    tool_paths = {{
        "ar": "bin/ar",
        "cpp": "bin/cpp",
        "dwp": "bin/dwp",
        "gcc": "{driver}",
        "gcov": "bin/gcov",
        "ld": "bin/ld",
        "nm": "bin/nm",
        "objcopy": "bin/objcopy",
        "objdump": "bin/objdump",
        "strip": "bin/strip",
    }},
    compile_flags = {compile_flags},
    opt_compile_flags = ["-g0", "-O2", "-D_FORTIFY_SOURCE=1", "-DNDEBUG", "-ffunction-sections", "-fdata-sections"],
    dbg_compile_flags = ["-g"],
    conly_flags = [],
    cxx_flags = {cxx_flags},
    link_flags = {link_flags},
    link_libs = ["-l:libstdc++.a", "-lm"],
    opt_link_flags = ["-Wl,--gc-sections"],
    unfiltered_compile_flags = {unfiltered_compile_flags},
    coverage_compile_flags = ["--coverage"],
    coverage_link_flags = ["--coverage"],
    supports_start_end_lib = False,
)

cc_toolchain(
    name = "cc_toolchain",
    all_files = ":all_files",
    ar_files = ":runtime",
    as_files = ":compiler_files",
    compiler_files = ":compiler_files",
    dwp_files = ":runtime",
    linker_files = ":linker_files",
    objcopy_files = ":runtime",
    strip_files = ":runtime",
    supports_param_files = 1,
    toolchain_config = ":config",
    toolchain_identifier = "rules_cuda_stages_host_{name}",
)
"""

host_gcc_repository = repository_rule(
    implementation = _host_gcc_impl,
    doc = "A hermetic gcc, binutils and glibc from one Debian suite, and a C++ toolchain over them (host_gcc.bzl).",
    attrs = {
        "toolchain": attr.string(mandatory = True, values = sorted(HOST_GCC), doc = "The host_gcc_debs.bzl entry."),
    },
)
