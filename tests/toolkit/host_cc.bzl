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

load("//tests/common:host_compiler.bzl", "CC_AUTOCONF_ENVIRON", "configure_toolchain", "find_compiler")

_CANDIDATES = ["gcc-13", "gcc-12", "gcc-11"]
_TOOLKIT = "12.4"

def _gcc_major(rctx, path):
    result = rctx.execute([path, "-dumpversion"])
    major = result.stdout.strip().split(".")[0]
    return int(major) if result.return_code == 0 and major.isdigit() else 0

def _host_cc_impl(rctx):
    found, _, _ = find_compiler(rctx, "CUDA12_HOST_CC", _CANDIDATES, _gcc_major, range(1, 14))
    if found == None:
        rctx.file("BUILD.bazel", "# No gcc <= 13 on this machine (tests/toolkit/host_cc.bzl).\n")
        rctx.file("defs.bzl", "HOST_CC = None\n")
        return
    configure_toolchain(
        rctx,
        found,
        name = "cuda{}_toolchain".format(_TOOLKIT.split(".")[0]),
        target_setting = "@rules_cuda_stages//cuda_rules:toolkit_{}".format(_TOOLKIT),
        comment = "rules_cuda_stages (tests/toolkit/host_cc.bzl): this toolchain for builds with CUDA {}.".format(_TOOLKIT),
    )
    rctx.file("defs.bzl", "HOST_CC = {}\n".format(repr(str(found))))

_host_cc_repository = repository_rule(
    implementation = _host_cc_impl,
    doc = "Bazel's C++ autoconfiguration with a gcc that CUDA 12.4 accepts, as a toolchain for toolkit=12.4.",
    environ = ["CUDA12_HOST_CC"] + CC_AUTOCONF_ENVIRON,
    configure = True,
)

def _host_cc_extension_impl(_module_ctx):
    _host_cc_repository(name = "cuda12_host_cc")

host_cc = module_extension(
    implementation = _host_cc_extension_impl,
    doc = "@cuda12_host_cc: the C++ toolchain of this repository's CUDA 12.4 builds (tests/toolkit/host_cc.bzl).",
)
