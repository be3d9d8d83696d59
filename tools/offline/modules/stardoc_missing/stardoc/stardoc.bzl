"""Stand-in for Stardoc's stardoc.bzl: every target fails naming the missing addon."""

MESSAGE = ("tools/bazelw's stardoc addon (Debian's bazel-stardoc, which generates the API reference) " +
           "is not installed: run `tools/bazelw --bazelw-addon stardoc` (docs/bazelw.md, \"Addons\").")

def _addon_missing_impl(ctx):
    ctx.actions.run_shell(
        outputs = [ctx.outputs.out],
        command = "echo \"$1\" >&2; exit 1",
        arguments = [MESSAGE],
        mnemonic = "BazelwAddonMissing",
        progress_message = "Stardoc for %{label}",
    )
    return [DefaultInfo(files = depset([ctx.outputs.out]))]

addon_missing = rule(
    implementation = _addon_missing_impl,
    doc = "An output whose action fails with MESSAGE.",
    attrs = {"out": attr.output(mandatory = True)},
)

def stardoc(name, out, **kwargs):  # buildifier: disable=unused-variable
    """Takes stardoc()'s arguments; builds nothing but the failing `out`."""
    addon_missing(
        name = name,
        out = out,
        tags = kwargs.get("tags", []),
        visibility = kwargs.get("visibility"),
    )
