"""with_host_gcc: an executable built with --//cuda_rules:host_toolchain=gcc10 (the hermetic host toolchain)."""

def _gcc10_transition_impl(settings, attr):
    return {
        "//cuda_rules:host_toolchain": "gcc10",
        "//cuda_rules:toolkit": attr.toolkit or settings["//cuda_rules:toolkit"],
    }

_gcc10_transition = transition(
    implementation = _gcc10_transition_impl,
    inputs = ["//cuda_rules:toolkit"],
    outputs = ["//cuda_rules:host_toolchain", "//cuda_rules:toolkit"],
)

def _with_host_gcc_impl(ctx):
    # One executable, linked under this target's name: runfiles paths do
    # not name the configuration, so the test tells it from the default build's.
    src = ctx.files.srcs[0]
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = src, is_executable = True)
    return [DefaultInfo(files = depset([out]), executable = out)]

with_host_gcc = rule(
    implementation = _with_host_gcc_impl,
    doc = "One executable of `srcs`, built with the hermetic host toolchain, under this target's name.",
    attrs = {
        "srcs": attr.label_list(cfg = _gcc10_transition, allow_files = True, doc = "The executable to build with the hermetic host toolchain."),
        "toolkit": attr.string(doc = "The toolkit to build it with; empty: the build's."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)
