"""A clang C++ toolchain for this repository's tests (a dev dependency; users bring their own).

Bazel's own C++ autoconfiguration with the compiler replaced by clang,
registered with target_settings = //tests/host_clang:clang, so a build with
--//tests/host_clang:clang (or a target under the `with_host_clang`
transition) compiles C++ with clang and gives nvcc clang as its host compiler
(-ccbin): every host preprocess, device preprocess and host compile of the
.cu stages, and the final links.

The compiler: $HOST_CLANG (tools/bazelw's offline config sets its clang
addon's wrapper, docs/bazelw.md), else the first of clang-21 ... clang-16 on
PATH. nvcc 13.0 accepts clang 16 to 20 and nvcc 13.5 clang up to 21
(crt/host_config.h), so defs.bzl names the toolkit the tests build with
(HOST_CLANG_TOOLKIT: empty for the build's, 13.5 for clang 21). Without such a
clang (HOST_CLANG=none, the addon not installed, none on PATH) there is no
toolchain, and the tests that need one fail with HOST_CLANG_MISSING, one line
that says how to get it (not skipped).
"""

load("//tests/common:host_compiler.bzl", "CC_AUTOCONF_ENVIRON", "configure_toolchain", "find_compiler")

# The clangs nvcc accepts as host compiler (crt/host_config.h): 13.0 takes 16
# to 20, 13.5 up to 21.
MIN_CLANG = 16
MAX_CLANG = 21
TOOLKIT_FOR_CLANG = {21: "13.5"}
_CANDIDATES = ["clang-%d" % v for v in range(MAX_CLANG, MIN_CLANG - 1, -1)]

def clang_major(rctx, path):
    """The major version of a clang (its __clang_major__).

    Args:
      rctx: the repository context.
      path: the clang.

    Returns:
      int, 0 when unknown.
    """
    result = rctx.execute([path, "-dM", "-E", "-x", "c", "/dev/null"])
    if result.return_code != 0:
        return 0
    for line in result.stdout.splitlines():
        parts = line.split(" ")
        if len(parts) == 3 and parts[1] == "__clang_major__" and parts[2].isdigit():
            return int(parts[2])
    return 0

def _host_clang_impl(rctx):
    found, major, explicit = find_compiler(rctx, "HOST_CLANG", _CANDIDATES, clang_major, range(MIN_CLANG, MAX_CLANG + 1))
    if found == None:
        if explicit.startswith("/opt/rules_cuda_stages/"):
            missing = ("needs clang {}..{}: tools/bazelw's clang addon is not installed ({} is missing); " +
                       "run `tools/bazelw --bazelw-addon clang` (docs/bazelw.md, \"Addons\")").format(MIN_CLANG, MAX_CLANG, explicit)
        else:
            missing = ("needs clang {}..{} as nvcc's host compiler and none was found (HOST_CLANG={}, clang-{}..clang-{} on PATH); " +
                       "install one, or point --repo_env=HOST_CLANG at it (tests/host_clang/host_clang.bzl)").format(
                MIN_CLANG,
                MAX_CLANG,
                explicit or "unset",
                MAX_CLANG,
                MIN_CLANG,
            )
        rctx.file("BUILD.bazel", "# No clang {}..{} on this machine (tests/host_clang/host_clang.bzl).\n".format(MIN_CLANG, MAX_CLANG))
        rctx.file("defs.bzl", "HOST_CLANG = None\nHOST_CLANG_MAJOR = 0\nHOST_CLANG_TOOLKIT = \"\"\nHOST_CLANG_MISSING = {}\n".format(repr(missing)))
        return
    configure_toolchain(
        rctx,
        found,
        name = "host_clang_toolchain",
        target_setting = "@rules_cuda_stages//tests/host_clang:is_clang",
        comment = "rules_cuda_stages (tests/host_clang/host_clang.bzl): this toolchain for builds with --//tests/host_clang:clang.",
    )
    rctx.file("defs.bzl", "HOST_CLANG = {}\nHOST_CLANG_MAJOR = {}\nHOST_CLANG_TOOLKIT = {}\nHOST_CLANG_MISSING = None\n".format(
        repr(str(found)),
        major,
        repr(TOOLKIT_FOR_CLANG.get(major, "")),
    ))

_host_clang_repository = repository_rule(
    implementation = _host_clang_impl,
    doc = "Bazel's C++ autoconfiguration with a clang that nvcc 13.0 accepts, as a toolchain for --//tests/host_clang:clang.",
    environ = ["HOST_CLANG"] + CC_AUTOCONF_ENVIRON,
    configure = True,
)

def _host_clang_extension_impl(_module_ctx):
    _host_clang_repository(name = "host_clang")

host_clang = module_extension(
    implementation = _host_clang_extension_impl,
    doc = "@host_clang: the clang C++ toolchain of this repository's host-compiler tests (tests/host_clang/host_clang.bzl).",
)

def _clang_transition_impl(settings, attr):
    return {
        "//tests/host_clang:clang": True,
        "//cuda_rules:toolkit": attr.toolkit or settings["//cuda_rules:toolkit"],
    }

_clang_transition = transition(
    implementation = _clang_transition_impl,
    inputs = ["//cuda_rules:toolkit"],
    outputs = ["//tests/host_clang:clang", "//cuda_rules:toolkit"],
)

def _with_host_clang_impl(ctx):
    files = depset(transitive = [s[DefaultInfo].files for s in ctx.attr.srcs])
    runfiles = ctx.runfiles(transitive_files = files).merge_all([s[DefaultInfo].default_runfiles for s in ctx.attr.srcs])
    return [DefaultInfo(files = files, runfiles = runfiles)]

with_host_clang = rule(
    implementation = _with_host_clang_impl,
    doc = "`srcs` (and their runfiles), built with --//tests/host_clang:clang: clang as the C++ toolchain and nvcc's host compiler.",
    attrs = {
        "srcs": attr.label_list(cfg = _clang_transition, doc = "The targets to build with clang."),
        "toolkit": attr.string(doc = "The toolkit to build them with (HOST_CLANG_TOOLKIT: one that accepts this clang); empty: the build's."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)

def _missing_test_impl(ctx):
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, "#!/bin/sh\ncat >&2 <<'END_OF_MESSAGE'\n{}: {}\nEND_OF_MESSAGE\nexit 1\n".format(ctx.label, ctx.attr.message), is_executable = True)
    return [DefaultInfo(executable = script)]

_missing_test = rule(
    implementation = _missing_test_impl,
    test = True,
    attrs = {"message": attr.string(mandatory = True)},
)

def missing_test(name, message, **kwargs):
    """A test that fails printing `<label>: <message>`: what stands for a test whose compiler is missing."""
    _missing_test(
        name = name,
        message = message,
        size = "small",
        **kwargs
    )
