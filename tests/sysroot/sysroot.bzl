"""A sysroot C++ toolchain for this repository's tests (a dev dependency): Debian 11's glibc 2.31 with clang.

@debian_bullseye_sysroot is a sysroot unpacked from Debian 11 (bullseye)
packages pinned by URL and sha256 (the C library and its headers, the kernel
headers, gcc 10's libgcc and libstdc++), and a C++ toolchain over it: clang
(one nvcc 13.0 accepts) with `builtin_sysroot` set, so the toolchain's
`sysroot` feature passes --sysroot to every C++ compile and link and the
.cu stages get it with the rest of the toolchain's flags (docs/cuda_library.md,
"The C++ toolchain's flags"). libstdc++ and libgcc are linked statically, so
a binary needs only the sysroot's glibc (2.31) or newer. Registered for builds
with --//tests/sysroot:bullseye (tests/sysroot/BUILD.bazel).

The clang: $SYSROOT_CLANG, else the first of clang-21 ... clang-16 on PATH
(tools/bazelw's clang addon installs clang 21), built with a toolkit that
accepts it (SYSROOT_TOOLKIT: 13.5 for clang 21). SYSROOT_CLANG=none or no such
clang: no toolchain, and the test fails with SYSROOT_MISSING, naming how to
get one (not skipped).
"""

load("//cuda_rules/private/repo:debian_root.bzl", "make_root_standalone")  # buildifier: disable=bzl-visibility
load("//tests/host_clang:host_clang.bzl", "MAX_CLANG", "MIN_CLANG", "TOOLKIT_FOR_CLANG")

# Debian 11.11 (bullseye), amd64: (package, version, pool path, sha256).
PACKAGES = [
    ("libc6", "2.31-13+deb11u11", "pool/main/g/glibc/libc6_2.31-13+deb11u11_amd64.deb", "05f7264da867b37f4c5ce49266b558ea1e81e05a9464f623152fca70f3550282"),
    ("libc6-dev", "2.31-13+deb11u11", "pool/main/g/glibc/libc6-dev_2.31-13+deb11u11_amd64.deb", "e7f7b45d9c5cfcf37609f0b6efd3c645272c812144703af89dfd32218fcb0fd3"),
    ("linux-libc-dev", "5.10.223-1", "pool/main/l/linux/linux-libc-dev_5.10.223-1_amd64.deb", "e3be603bd12377bb90fcfb0f2048ca3a81c886e49d6f09945b82159d1c54f7b2"),
    ("libgcc-10-dev", "10.2.1-6", "pool/main/g/gcc-10/libgcc-10-dev_10.2.1-6_amd64.deb", "3b711374092b84e732c4e73cf33e02cff02e34a5f105eb6467de8d9038e4cd9d"),
    ("libstdc++-10-dev", "10.2.1-6", "pool/main/g/gcc-10/libstdc++-10-dev_10.2.1-6_amd64.deb", "20b1f56863dcc5f187d6cb53b2aa6149bd013be4ec67e10c2c31a22fda619a01"),
    ("libgcc-s1", "10.2.1-6", "pool/main/g/gcc-10/libgcc-s1_10.2.1-6_amd64.deb", "e478f2709d8474165bb664de42e16950c391f30eaa55bc9b3573281d83a29daf"),
]

# bullseye's files move to the archive when its support ends.
MIRRORS = ["https://deb.debian.org/debian/", "https://archive.debian.org/debian/"]

# The glibc of the sysroot: no binary built against it needs a newer one.
GLIBC = "2.31"
GCC = "10"

_CANDIDATES = ["clang-%d" % v for v in range(MAX_CLANG, MIN_CLANG - 1, -1)]

def _find_clang(rctx):
    explicit = rctx.os.environ.get("SYSROOT_CLANG", "")
    if explicit == "none":
        return None, 0
    for candidate in ([explicit] if explicit else []) + _CANDIDATES:
        path = rctx.path(candidate) if candidate.startswith("/") else rctx.which(candidate)
        if not path or not path.exists:
            continue
        result = rctx.execute([path, "-dM", "-E", "-x", "c", "/dev/null"])
        for line in result.stdout.splitlines():
            parts = line.split(" ")
            if len(parts) == 3 and parts[1] == "__clang_major__" and parts[2].isdigit():
                major = int(parts[2])
                if major in range(MIN_CLANG, MAX_CLANG + 1):
                    return path, major
    return None, 0

def _sysroot_impl(rctx):
    clang, major = _find_clang(rctx)
    if clang == None:
        missing = ("needs clang {}..{} for its sysroot toolchain and none was found (SYSROOT_CLANG={}, clang-{}..clang-{} on PATH); " +
                   "install one (tools/bazelw: `tools/bazelw --bazelw-addon clang`)").format(
            MIN_CLANG,
            MAX_CLANG,
            rctx.os.environ.get("SYSROOT_CLANG", "") or "unset",
            MAX_CLANG,
            MIN_CLANG,
        )
        rctx.file("BUILD.bazel", "# No clang {}..{} on this machine (tests/sysroot/sysroot.bzl).\n".format(MIN_CLANG, MAX_CLANG))
        rctx.file("defs.bzl", "SYSROOT_CLANG = None\nSYSROOT_TOOLKIT = \"\"\nSYSROOT_MISSING = {}\nGLIBC = {}\n".format(repr(missing), repr(GLIBC)))
        return
    for name, _version, path, sha256 in PACKAGES:
        deb = "_debs/{}.deb".format(name)
        rctx.download(url = [m + path for m in MIRRORS], output = deb, sha256 = sha256)
        rctx.extract(deb, output = "_debs/" + name)
        data = [e for e in rctx.path("_debs/" + name).readdir() if e.basename.startswith("data.tar")]
        if len(data) != 1:
            fail("tests/sysroot: {} has no data archive".format(path))
        rctx.extract(data[0], output = "sysroot")
    rctx.delete("_debs")
    make_root_standalone(rctx, "sysroot", "tests/sysroot")

    # The toolchain's rules: rules_cc's own, as Bazel's autoconfiguration writes them.
    rctx.symlink(Label("@rules_cc//cc/private/toolchain:unix_cc_toolchain_config.bzl"), "cc_toolchain_config.bzl")

    # clang's own headers, as it names them with and without -no-canonical-prefixes.
    resources = {
        rctx.execute([clang] + flags + ["-print-resource-dir"]).stdout.strip() + "/include": None
        for flags in ([], ["-no-canonical-prefixes"])
    }.keys()
    tool = lambda name: str(rctx.which(name) or "/usr/bin/" + name)

    # Execroot-relative, so keys and command lines do not name the output base.
    sysroot = "external/{}/sysroot".format(rctx.path(".").basename)
    rctx.file("BUILD.bazel", _BUILD.format(
        sysroot = repr(sysroot),
        clang = repr(str(clang)),
        includes = repr(resources + [
            "%sysroot%/usr/include",
            "%sysroot%/usr/include/x86_64-linux-gnu",
            "%sysroot%/usr/include/c++/" + GCC,
            "%sysroot%/usr/include/x86_64-linux-gnu/c++/" + GCC,
            "%sysroot%/usr/include/c++/{}/backward".format(GCC),
        ]),
        ar = repr(tool("ar")),
        ld = repr(tool("ld")),
        nm = repr(tool("nm")),
        objcopy = repr(tool("objcopy")),
        objdump = repr(tool("objdump")),
        strip = repr(tool("strip")),
    ))
    rctx.file("defs.bzl", "SYSROOT_CLANG = {}\nSYSROOT_TOOLKIT = {}\nSYSROOT_MISSING = None\nGLIBC = {}\n".format(
        repr(str(clang)),
        repr(TOOLKIT_FOR_CLANG.get(major, "")),
        repr(GLIBC),
    ))

_BUILD = """# Written by rules_cuda_stages' tests/sysroot/sysroot.bzl.
load("@rules_cc//cc:defs.bzl", "cc_toolchain")
load(":cc_toolchain_config.bzl", "cc_toolchain_config")

package(default_visibility = ["//visibility:public"])

filegroup(
    name = "sysroot_files",
    srcs = glob(["sysroot/**"]),
)

cc_toolchain_config(
    name = "config",
    cpu = "k8",
    compiler = "clang",
    toolchain_identifier = "debian_bullseye_clang",
    host_system_name = "local",
    target_system_name = "x86_64-linux-gnu",
    target_libc = "glibc_2.31",
    abi_version = "clang",
    abi_libc_version = "glibc_2.31",
    builtin_sysroot = {sysroot},
    cxx_builtin_include_directories = {includes},
    tool_paths = {{
        "ar": {ar},
        "cpp": "/bin/false",
        "dwp": "/bin/false",
        "gcc": {clang},
        "gcov": "/bin/false",
        "ld": {ld},
        "nm": {nm},
        "objcopy": {objcopy},
        "objdump": {objdump},
        "strip": {strip},
    }},
    compile_flags = ["-fstack-protector", "-Wall", "-fno-omit-frame-pointer"],
    opt_compile_flags = ["-g0", "-O2", "-D_FORTIFY_SOURCE=1", "-DNDEBUG", "-ffunction-sections", "-fdata-sections"],
    dbg_compile_flags = ["-g"],
    conly_flags = [],
    cxx_flags = ["-std=c++17"],
    link_flags = ["-fuse-ld=bfd", "-Wl,-no-as-needed", "-Wl,-z,relro,-z,now", "-static-libgcc"],
    link_libs = ["-l:libstdc++.a", "-lm"],
    opt_link_flags = ["-Wl,--gc-sections"],
    unfiltered_compile_flags = [
        "-no-canonical-prefixes",
        "-Wno-builtin-macro-redefined",
        "-D__DATE__=\\"redacted\\"",
        "-D__TIMESTAMP__=\\"redacted\\"",
        "-D__TIME__=\\"redacted\\"",
    ],
    coverage_compile_flags = ["--coverage"],
    coverage_link_flags = ["--coverage"],
    supports_start_end_lib = False,
)

cc_toolchain(
    name = "cc_toolchain",
    all_files = ":sysroot_files",
    ar_files = ":sysroot_files",
    as_files = ":sysroot_files",
    compiler_files = ":sysroot_files",
    dwp_files = ":sysroot_files",
    linker_files = ":sysroot_files",
    objcopy_files = ":sysroot_files",
    strip_files = ":sysroot_files",
    supports_param_files = 1,
    toolchain_config = ":config",
    toolchain_identifier = "debian_bullseye_clang",
)

toolchain(
    name = "toolchain",
    exec_compatible_with = ["@platforms//os:linux", "@platforms//cpu:x86_64"],
    target_compatible_with = ["@platforms//os:linux", "@platforms//cpu:x86_64"],
    target_settings = ["@rules_cuda_stages//tests/sysroot:is_bullseye"],
    toolchain = ":cc_toolchain",
    toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
)
"""

_sysroot_repository = repository_rule(
    implementation = _sysroot_impl,
    doc = "Debian 11's glibc 2.31, gcc 10's libstdc++ and a clang C++ toolchain over them (tests/sysroot/sysroot.bzl).",
    environ = ["SYSROOT_CLANG", "PATH"],
)

def _sysroot_extension_impl(_module_ctx):
    _sysroot_repository(name = "debian_bullseye_sysroot")

sysroot = module_extension(
    implementation = _sysroot_extension_impl,
    doc = "@debian_bullseye_sysroot: a glibc 2.31 sysroot and its clang C++ toolchain (tests/sysroot/sysroot.bzl).",
)
