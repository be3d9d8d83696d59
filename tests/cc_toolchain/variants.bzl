"""One target's stage scripts and outputs under other build flags (compilation mode, --cxxopt, device debug, host toolchain, CUDA compiler, toolkit), side by side."""

load("@rules_python//python:defs.bzl", "py_test")

_MODE = "//command_line_option:compilation_mode"
_COMPILER = str(Label("//cuda_rules:compiler"))
_COPT = "//command_line_option:copt"
_CXXOPT = "//command_line_option:cxxopt"
_DEVICE_DEBUG = str(Label("//cuda_rules:device_debug"))
_HOST_TOOLCHAIN = str(Label("//cuda_rules:host_toolchain"))
_TOOLKIT = str(Label("//cuda_rules:toolkit"))

def _transition_impl(settings, attr):
    return {
        _MODE: attr.compilation_mode or settings[_MODE],
        _COMPILER: attr.compiler or settings[_COMPILER],
        _COPT: settings[_COPT] + attr.copt,
        _CXXOPT: settings[_CXXOPT] + attr.cxxopt,
        _DEVICE_DEBUG: attr.device_debug,
        _HOST_TOOLCHAIN: attr.host_toolchain or settings[_HOST_TOOLCHAIN],
        _TOOLKIT: attr.toolkit or settings[_TOOLKIT],
    }

_variant_transition = transition(
    implementation = _transition_impl,
    inputs = [_MODE, _COMPILER, _COPT, _CXXOPT, _HOST_TOOLCHAIN, _TOOLKIT],
    outputs = [_MODE, _COMPILER, _COPT, _CXXOPT, _DEVICE_DEBUG, _HOST_TOOLCHAIN, _TOOLKIT],
)

_GROUPS = ["cuda_plan", "ptx", "cubin", "cuda_objects"]

def _stage_variant_impl(ctx):
    target = ctx.attr.target[0]
    out = []
    for group in ctx.attr.groups:
        for f in getattr(target[OutputGroupInfo], group).to_list():
            # <name>/<path under _cuda/<target>/<source>/>, the same for every variant.
            rel = f.short_path.partition("/_cuda/")[2].split("/", 2)[2]
            link = ctx.actions.declare_file("{}/{}".format(ctx.label.name, rel))
            ctx.actions.symlink(output = link, target_file = f)
            out.append(link)
    return [DefaultInfo(files = depset(out), runfiles = ctx.runfiles(files = out))]

stage_variant = rule(
    implementation = _stage_variant_impl,
    doc = "The stage scripts, PTX, cubins and objects (or other `groups`) of `target` (one .cu) built with other flags, under <name>/.",
    attrs = {
        "target": attr.label(cfg = _variant_transition, mandatory = True, doc = "A cuda_library of one .cu file."),
        "compilation_mode": attr.string(doc = "-c for the target (empty: the build's)."),
        "compiler": attr.string(doc = "--@rules_cuda_stages//cuda_rules:compiler (empty: the build's)."),
        "copt": attr.string_list(doc = "--copt values added."),
        "cxxopt": attr.string_list(doc = "--cxxopt values added."),
        "device_debug": attr.string_list(doc = "--@rules_cuda_stages//cuda_rules:device_debug."),
        "groups": attr.string_list(default = _GROUPS, doc = "The output groups of `target` to give."),
        "host_toolchain": attr.string(doc = "--@rules_cuda_stages//cuda_rules:host_toolchain (empty: the build's)."),
        "toolkit": attr.string(doc = "--@rules_cuda_stages//cuda_rules:toolkit (empty: the build's)."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)

def variants_test(name, target, variants):
    """variants_test.py over `target` built as each of `variants`.

    Args:
      name: the test's name; the variants are <target name>_<variant>.
      target: a cuda_library of one .cu file, in this package.
      variants: dict of variant name -> stage_variant attributes.
    """
    base = target.lstrip(":")
    for variant, kwargs in variants.items():
        stage_variant(name = "{}_{}".format(base, variant), target = target, tags = ["manual"], **kwargs)
    py_test(
        name = name,
        size = "small",
        srcs = ["variants_test.py"],
        data = [":{}_{}".format(base, v) for v in variants],
        deps = ["@rules_cuda_stages_pypi//bazel_runfiles"],
    )
