"""The actions a target registers, written as JSON: what stage_graph_test checks against the stage table."""

def _action_graph_aspect_impl(target, ctx):
    actions = []
    for a in target.actions:
        outputs = a.outputs.to_list()
        entry = {
            "inputs": [f.path for f in a.inputs.to_list()],
            "mnemonic": a.mnemonic,
            "outputs": [f.path for f in outputs],
        }
        if a.mnemonic == "FileWrite" and outputs and outputs[0].basename == "layout.json":
            entry["content"] = a.content
        actions.append(entry)
    out = ctx.actions.declare_file(ctx.label.name + ".action_graph.json")
    ctx.actions.write(out, json.encode_indent({"actions": actions, "label": str(target.label)}))
    return [OutputGroupInfo(action_graph = depset([out]))]

_action_graph_aspect = aspect(
    implementation = _action_graph_aspect_impl,
    doc = "Writes the target's actions (mnemonic, inputs, outputs; layouts' contents) as JSON.",
)

def _action_graph_impl(ctx):
    return [DefaultInfo(files = depset(transitive = [t[OutputGroupInfo].action_graph for t in ctx.attr.targets]))]

action_graph = rule(
    implementation = _action_graph_impl,
    doc = "The action graphs of `targets` (one JSON file each), analysed only: nothing of the targets is built.",
    attrs = {
        "targets": attr.label_list(aspects = [_action_graph_aspect], doc = "The targets whose actions to write."),
    },
)
