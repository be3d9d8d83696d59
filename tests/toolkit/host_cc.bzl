"""This repository's own C++ toolchain for its CUDA 12.4 builds (a dev dependency; users bring their own).

nvcc 12.4 accepts gcc 13 and older as host compiler, while most current
machines have a newer gcc. So that one `bazel test //...` builds the 13.x
tests with the default gcc and the 12.4 ones (the fidelity cases, through a
transition to toolkit=12.4) with an accepted one, this extension configures a
second C++ toolchain, Bazel's own autoconfiguration with the compiler
replaced, registered with target_settings = toolkit 12.4. The compiler:
$CUDA12_HOST_CC (tools/bazelw's offline config sets its gcc 12, the same as
the default one), else gcc-13, gcc-12 or gcc-11 on PATH; CUDA12_HOST_CC=none:
no toolchain (tests/e2e:reuse_test_cuda12_4 builds with a too new gcc).
Without one, defs.bzl says so and the 12.4 tests are skipped (incompatible).
"""

load("@rules_cc//cc/private/toolchain:cc_configure.bzl", "cc_autoconf_impl")  # buildifier: disable=bzl-visibility

_CANDIDATES = ["gcc-13", "gcc-12", "gcc-11"]
_TOOLKIT = "12.4"

def _gcc_major(rctx, path):
    result = rctx.execute([path, "-dumpversion"])
    major = result.stdout.strip().split(".")[0]
    return int(major) if result.return_code == 0 and major.isdigit() else 0

def _host_cc_impl(rctx):
    found = None
    explicit = rctx.os.environ.get("CUDA12_HOST_CC", "")
    for candidate in ([explicit] if explicit else []) + ([] if explicit == "none" else _CANDIDATES):
        if candidate == "none":
            continue
        path = rctx.path(candidate) if candidate.startswith("/") else rctx.which(candidate)
        if path and path.exists and _gcc_major(rctx, path) in range(1, 14):
            found = path
            break
    if found == None:
        rctx.file("BUILD.bazel", "# No gcc <= 13 on this machine (tests/toolkit/host_cc.bzl).\n")
        rctx.file("defs.bzl", "HOST_CC = None\n")
        return
    cc_autoconf_impl(rctx, overriden_tools = {"gcc": str(found)})
    build = rctx.read("BUILD")
    rctx.file("BUILD", build + """
# rules_cuda_stages (tests/toolkit/host_cc.bzl): this toolchain for builds with CUDA {toolkit}.
toolchain(
    name = "cuda{major}_toolchain",
    exec_compatible_with = ["@platforms//os:linux", "@platforms//cpu:x86_64"],
    target_compatible_with = ["@platforms//os:linux", "@platforms//cpu:x86_64"],
    target_settings = ["@rules_cuda_stages//cuda_rules:toolkit_{toolkit}"],
    toolchain = ":cc-compiler-k8",
    toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
)
""".format(toolkit = _TOOLKIT, major = _TOOLKIT.split(".")[0]))
    rctx.file("defs.bzl", "HOST_CC = {}\n".format(repr(str(found))))

_host_cc_repository = repository_rule(
    implementation = _host_cc_impl,
    doc = "Bazel's C++ autoconfiguration with a gcc that CUDA 12.4 accepts, as a toolchain for toolkit=12.4.",
    environ = [
        "CUDA12_HOST_CC",
        "BAZEL_LINKLIBS",
        "BAZEL_LINKOPTS",
        "BAZEL_CXXOPTS",
        "BAZEL_CONLYOPTS",
        "BAZEL_COMPILER",
        "CC",
        "PATH",
    ],
    configure = True,
)

def _host_cc_extension_impl(_module_ctx):
    _host_cc_repository(name = "cuda12_host_cc")

host_cc = module_extension(
    implementation = _host_cc_extension_impl,
    doc = "@cuda12_host_cc: the C++ toolchain of this repository's CUDA 12.4 builds (tests/toolkit/host_cc.bzl).",
)
