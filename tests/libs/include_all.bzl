"""include_all: a .cu that includes every public header of some cc_library targets."""

load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")

def _include_all_impl(ctx):
    # Each target's own headers (not those of its deps: a library's TU does
    # not repeat the toolkit's).
    headers = depset(transitive = [depset(d[CcInfo].compilation_context.direct_public_headers) for d in ctx.attr.deps])
    args = ctx.actions.args()
    args.add("--include_dir=include")
    args.add(ctx.outputs.out, format = "--out=%s")
    args.add_all(headers)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [args],
        inputs = headers,
        outputs = [ctx.outputs.out],
        mnemonic = "CudaIncludeAll",
        progress_message = "Listing the public headers of %{label}",
    )
    return [DefaultInfo(files = depset([ctx.outputs.out]))]

include_all = rule(
    implementation = _include_all_impl,
    doc = "Writes `out`, a translation unit including every public header (tests/libs/headers_lib.py) that `deps` provide.",
    attrs = {
        "deps": attr.label_list(providers = [CcInfo], doc = "cc_library targets whose headers to include."),
        "out": attr.output(mandatory = True, doc = "The .cu file."),
        "_tool": attr.label(default = ":gen_include_all", executable = True, cfg = "exec"),
    },
)
