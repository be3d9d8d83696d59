"""toolkit_nvcc: one CUDA version's nvcc (the toolkit in its runfiles) and the archs its toolchain says it builds."""

load("//cuda_rules:toolchain.bzl", "CUDA_TOOLCHAINS", "find_cuda_toolchain")

_TOOLKIT = "//cuda_rules:toolkit"

def _transition_impl(_settings, attr):
    return {_TOOLKIT: attr.toolkit}

_toolkit_transition = transition(
    implementation = _transition_impl,
    inputs = [],
    outputs = [_TOOLKIT],
)

def _toolkit_nvcc_impl(ctx):
    cuda = find_cuda_toolchain(ctx)
    archs = ctx.actions.declare_file(ctx.label.name + ".supported_archs.json")
    ctx.actions.write(archs, json.encode(cuda.supported_archs))
    return [
        DefaultInfo(
            files = depset([cuda.nvcc]),
            runfiles = ctx.runfiles(files = [archs], transitive_files = depset(transitive = [cuda.nvcc_files, cuda.compiler_files])),
        ),
        OutputGroupInfo(supported_archs = depset([archs])),
    ]

toolkit_nvcc = rule(
    implementation = _toolkit_nvcc_impl,
    doc = "bin/nvcc of CUDA `toolkit` (built with --@rules_cuda_stages//cuda_rules:toolkit=`toolkit`), the toolkit in " +
          "its runfiles, and the output group supported_archs: the toolchain's supported_archs as JSON.",
    attrs = {
        "toolkit": attr.string(mandatory = True, doc = "A value of --@rules_cuda_stages//cuda_rules:toolkit, e.g. 13.0."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
    cfg = _toolkit_transition,
    toolchains = CUDA_TOOLCHAINS,
)
