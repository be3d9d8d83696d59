"""Bazel's C++ autoconfiguration with another compiler, as a toolchain for some builds of the tests only.

What tests/host_clang/host_clang.bzl (clang as nvcc's host compiler) and
tests/toolkit/host_cc.bzl (a gcc CUDA 12.4 accepts) share: finding the
compiler (an environment variable naming it, "none" for no toolchain, else
the first accepted candidate on PATH), and configuring Bazel's C++ toolchain
with it, registered for `target_settings`.
"""

load("@rules_cc//cc/private/toolchain:cc_configure.bzl", "cc_autoconf_impl")  # buildifier: disable=bzl-visibility

visibility(["//tests/..."])

# What Bazel's C++ autoconfiguration reads from the environment (the repository rules' `environ`, with their own variable).
CC_AUTOCONF_ENVIRON = [
    "BAZEL_LINKLIBS",
    "BAZEL_LINKOPTS",
    "BAZEL_CXXOPTS",
    "BAZEL_CONLYOPTS",
    "BAZEL_COMPILER",
    "CC",
    "PATH",
]

def find_compiler(rctx, variable, candidates, version_of, accepted):
    """The compiler to configure: $variable if set (a path or a name on PATH; "none": none), else the first of `candidates`.

    Args:
      rctx: the repository context.
      variable: the environment variable that names the compiler.
      candidates: names to look for on PATH, in order, when the variable is unset.
      version_of: function (rctx, path) -> its major version (0 when unknown).
      accepted: list of int, the major versions that may be used.

    Returns:
      (path or None, its major version, the variable's value).
    """
    explicit = rctx.os.environ.get(variable, "")
    for candidate in ([explicit] if explicit else []) + ([] if explicit == "none" else candidates):
        if candidate == "none":
            continue
        path = rctx.path(candidate) if candidate.startswith("/") else rctx.which(candidate)
        if path and path.exists:
            major = version_of(rctx, path)
            if major in accepted:
                return path, major, explicit
    return None, 0, explicit

def configure_toolchain(rctx, compiler, name, target_setting, comment):
    """Bazel's C++ autoconfiguration with `compiler`, and a toolchain of it for builds where `target_setting` holds.

    Args:
      rctx: the repository context.
      compiler: path of the compiler (the autoconfiguration's gcc).
      name: the toolchain's name in the repository.
      target_setting: label string of the config_setting that selects it.
      comment: the comment line above it in the BUILD file.
    """
    cc_autoconf_impl(rctx, overriden_tools = {"gcc": str(compiler)})
    build = rctx.read("BUILD")
    rctx.file("BUILD", build + """
# {comment}
toolchain(
    name = "{name}",
    exec_compatible_with = ["@platforms//os:linux", "@platforms//cpu:x86_64"],
    target_compatible_with = ["@platforms//os:linux", "@platforms//cpu:x86_64"],
    target_settings = ["{target_setting}"],
    toolchain = ":cc-compiler-k8",
    toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
)
""".format(comment = comment, name = name, target_setting = target_setting))
