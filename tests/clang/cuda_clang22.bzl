"""A clang 22 C++ toolchain for this repository's clang-mode tests with CUDA 13.0 (a dev dependency).

The same as @host_clang (tests/host_clang/host_clang.bzl), for another clang:
Bazel's C++ autoconfiguration with clang 22 as its compiler, registered with
target_settings = //tests/clang:is_clang22, so a build with
--//tests/clang:clang22 (or a target under tests/clang's clang transition with
`clang = 22`) compiles C++ with it and, with
--@rules_cuda_stages//cuda_rules:compiler=clang, CUDA too: clang 22 with CUDA
13.0 is a pair of compile/clang.bzl's CLANG_CUDA_PAIRS. It is not nvcc's host
compiler for any test (nvcc 13.5 accepts clang up to 21): @host_clang stays
clang 21.

The compiler: $CUDA_CLANG22 (tools/bazelw's offline config sets its clang22
addon's wrapper, docs/bazelw.md), else clang-22 on PATH. Without it
(CUDA_CLANG22=none, the addon not installed, none on PATH) there is no
toolchain, and the tests that need one fail with CUDA_CLANG22_MISSING, one
line that says how to get it (not skipped).
"""

load("//tests/common:host_compiler.bzl", "CC_AUTOCONF_ENVIRON", "configure_toolchain", "find_compiler")
load("//tests/host_clang:host_clang.bzl", "clang_major")

MAJOR = 22

def _cuda_clang22_impl(rctx):
    found, _, explicit = find_compiler(rctx, "CUDA_CLANG22", ["clang-%d" % MAJOR], clang_major, [MAJOR])
    if found == None:
        if explicit.startswith("/opt/rules_cuda_stages/"):
            missing = ("needs clang {}: tools/bazelw's clang22 addon is not installed ({} is missing, or is not clang {}); " +
                       "run `tools/bazelw --bazelw-addon clang22` (docs/bazelw.md, \"Addons\")").format(MAJOR, explicit, MAJOR)
        else:
            missing = ("needs clang {} (the clang of the clang x CUDA 13.0 pair) and none was found (CUDA_CLANG22={}, clang-{} on PATH); " +
                       "run `tools/bazelw --bazelw-addon clang22`, or point --repo_env=CUDA_CLANG22 at one (tests/clang/cuda_clang22.bzl)").format(
                MAJOR,
                explicit or "unset",
                MAJOR,
            )
        rctx.file("BUILD.bazel", "# No clang {} on this machine (tests/clang/cuda_clang22.bzl).\n".format(MAJOR))
        rctx.file("defs.bzl", "CUDA_CLANG22 = None\nCUDA_CLANG22_MISSING = {}\n".format(repr(missing)))
        return
    configure_toolchain(
        rctx,
        found,
        name = "cuda_clang22_toolchain",
        target_setting = "@rules_cuda_stages//tests/clang:is_clang22",
        comment = "rules_cuda_stages (tests/clang/cuda_clang22.bzl): this toolchain for builds with --//tests/clang:clang22.",
    )
    rctx.file("defs.bzl", "CUDA_CLANG22 = {}\nCUDA_CLANG22_MISSING = None\n".format(repr(str(found))))

_cuda_clang22_repository = repository_rule(
    implementation = _cuda_clang22_impl,
    doc = "Bazel's C++ autoconfiguration with clang 22, as a toolchain for --//tests/clang:clang22.",
    environ = ["CUDA_CLANG22"] + CC_AUTOCONF_ENVIRON,
    configure = True,
)

def _cuda_clang22_extension_impl(_module_ctx):
    _cuda_clang22_repository(name = "cuda_clang22")

cuda_clang22 = module_extension(
    implementation = _cuda_clang22_extension_impl,
    doc = "@cuda_clang22: the clang 22 C++ toolchain of this repository's clang-mode tests with CUDA 13.0 (tests/clang/cuda_clang22.bzl).",
)
