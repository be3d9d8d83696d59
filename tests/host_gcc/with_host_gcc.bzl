"""with_host_gcc: targets built with --//cuda_rules:host_toolchain=gcc10 (the hermetic host toolchain)."""

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
    if ctx.attr.executable:
        # One executable, linked under this target's name: runfiles paths do
        # not name the configuration, so the test tells it from the default build's.
        src = ctx.files.srcs[0]
        out = ctx.actions.declare_file(ctx.label.name)
        ctx.actions.symlink(output = out, target_file = src, is_executable = True)
        return [DefaultInfo(files = depset([out]), executable = out)]

    # The files under <this target's name>/<their short path>, so that two
    # targets of different configurations do not give one runfiles path twice.
    out = []
    for target in ctx.attr.srcs:
        for group in ctx.attr.output_groups:
            for f in target[OutputGroupInfo][group].to_list():
                link = ctx.actions.declare_file(ctx.label.name + "/" + f.short_path.replace("../", "external/"))
                ctx.actions.symlink(output = link, target_file = f)
                out.append(link)
    return [DefaultInfo(files = depset(out), runfiles = ctx.runfiles(files = out))]

with_host_gcc = rule(
    implementation = _with_host_gcc_impl,
    doc = "`srcs` built with the hermetic host toolchain: one executable under this target's name, or the files of `output_groups`.",
    attrs = {
        "executable": attr.bool(doc = "Whether srcs is one executable, given under this target's name."),
        "output_groups": attr.string_list(doc = "Without executable: the output groups of srcs to give (cuda_library's preprocessed, cuda_plan, ...)."),
        "srcs": attr.label_list(cfg = _gcc10_transition, allow_files = True, doc = "What to build with the hermetic host toolchain."),
        "toolkit": attr.string(doc = "The toolkit to build it with; empty: the build's."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)
