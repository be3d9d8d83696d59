"""with_host_gcc: an executable built with a hermetic host toolchain (--//cuda_rules:host_toolchain)."""

def _host_toolchain_transition_impl(settings, attr):
    return {
        "//cuda_rules:compiler": attr.compiler or settings["//cuda_rules:compiler"],
        "//cuda_rules:host_toolchain": attr.host_toolchain,
        "//cuda_rules:toolkit": attr.toolkit or settings["//cuda_rules:toolkit"],
    }

_host_toolchain_transition = transition(
    implementation = _host_toolchain_transition_impl,
    inputs = ["//cuda_rules:compiler", "//cuda_rules:toolkit"],
    outputs = ["//cuda_rules:compiler", "//cuda_rules:host_toolchain", "//cuda_rules:toolkit"],
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
    doc = "One executable of `srcs`, built with a hermetic host toolchain, under this target's name.",
    attrs = {
        "srcs": attr.label_list(cfg = _host_toolchain_transition, allow_files = True, doc = "The executable to build with the hermetic host toolchain."),
        "compiler": attr.string(doc = "The CUDA compiler (nvcc or clang); empty: the build's."),
        "host_toolchain": attr.string(default = "gcc10", doc = "The hermetic host toolchain: --//cuda_rules:host_toolchain."),
        "toolkit": attr.string(doc = "The toolkit to build it with; empty: the build's."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)
