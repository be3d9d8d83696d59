"""with_sysroot: targets built with --//tests/sysroot:bullseye (the glibc 2.31 sysroot toolchain, sysroot.bzl)."""

def _bullseye_transition_impl(settings, attr):
    return {
        "//tests/sysroot:bullseye": True,
        "//cuda_rules:toolkit": attr.toolkit or settings["//cuda_rules:toolkit"],
    }

_bullseye_transition = transition(
    implementation = _bullseye_transition_impl,
    inputs = ["//cuda_rules:toolkit"],
    outputs = ["//tests/sysroot:bullseye", "//cuda_rules:toolkit"],
)

def _with_sysroot_impl(ctx):
    # One executable, copied under this target's name: runfiles paths do not
    # name the configuration, so the test tells it from the default build's.
    src = ctx.files.srcs[0]
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = out, target_file = src, is_executable = True)
    return [DefaultInfo(files = depset([out]), executable = out)]

with_sysroot = rule(
    implementation = _with_sysroot_impl,
    doc = "One executable of `srcs`, built with --//tests/sysroot:bullseye, under this target's name.",
    attrs = {
        "srcs": attr.label_list(cfg = _bullseye_transition, allow_files = True, doc = "The executable to build with the sysroot toolchain."),
        "toolkit": attr.string(doc = "The toolkit to build it with (one that accepts the sysroot toolchain's clang); empty: the build's."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)
