"""Regenerates what docs/ repeats from the code: the API reference and the generated regions.

  bazel run //docs:update          # rewrite docs/api/*.md and the regions in docs/*.md, README.md
  //docs:docs_facts_test           # fails when a region is stale (api_docs_test: the API reference)

A generated region is marked in Markdown by HTML comments, which render as
nothing:

  <!-- generated: NAME -->...<!-- end generated -->

NAME is one of REGIONS below; each is computed from the file that defines the
fact (the stage table, the module extension's defaults, the versions table),
so the docs cannot drift from the code.
"""

import os
import re
import sys

if __package__ in (None, ""):  # run as a plain script: import from this checkout
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.faults import fault_table  # noqa: E402
from tools.nvcc_plan import stages  # noqa: E402

DOCS_WITH_REGIONS = ["README.md", "docs/cuda_library.md", "docs/migrating.md", "docs/remote.md", "docs/toolkits.md"]
API = ["defs", "providers", "toolchain", "extensions"]

_REGION = re.compile(r"(<!-- generated: ([a-z_]+) -->)(.*?)(<!-- end generated -->)", re.S)
_SCOPE = {
    stages.SOURCE: "source",
    stages.VIRTUAL: "virtual arch",
    stages.REAL: "real arch",
    stages.LINK: "link",
    stages.LINK_ARCH: "real arch",
}


def _read(root, path):
    with open(os.path.join(root, path)) as f:
        return f.read()


def _starlark_string(root, path, name):
    match = re.search(r'^%s = "([^"]*)"$' % re.escape(name), _read(root, path), re.M)
    if not match:
        raise SystemExit("docs/update.py: %s has no `%s = \"...\"`" % (path, name))
    return match.group(1)


def _stage_rows(table):
    rows = ["| mnemonic | per | what |", "| --- | --- | --- |"]
    if table is stages.COMPILE_STAGES:
        rows.append("| `%s` | source | runs `nvcc --dryrun` with the target's flags and writes one script per stage, the module id and the fatbinary's declaration |" % stages.PLAN_MNEMONIC)
    else:
        rows.append("| `%s` | link | runs `nvcc --dryrun -dlink [-dlto]` and writes one script per stage |" % stages.PLAN_MNEMONIC)
    for s in table:
        rows.append("| `%s` | %s | %s |" % (s.mnemonic, _SCOPE[s.scope], s.doc))
    return "\n" + "\n".join(rows) + "\n"


def _table_versions(root, path):
    """The CUDA versions (MAJOR.MINOR keys) of a versions table, in its order, as "13.0, 13.5"."""
    return ", ".join(re.findall(r'^    "([0-9]+\.[0-9]+)": \{$', _read(root, path), re.M))


def regions(root):
    """{region name: text} computed from the code."""
    return {
        "stage_table": _stage_rows(stages.COMPILE_STAGES),
        "link_stage_table": _stage_rows(stages.LINK_STAGES),
        "default_toolkit": _starlark_string(root, "cuda_rules/private/extension.bzl", "DEFAULT_TOOLKIT"),
        "default_shipped_archs": _starlark_string(root, "cuda_rules/private/extension.bzl", "DEFAULT_SHIPPED_ARCHS"),
        "hermetic_versions": _table_versions(root, "cuda_rules/private/repo/cuda_versions.bzl"),
        "debian_versions": _table_versions(root, "cuda_rules/private/repo/cuda_debs.bzl"),
        "mnemonics": ", ".join("`%s`" % m for m in stages.pipeline_mnemonics()),
        "faults_table": fault_table.markdown_table(),
    }


def render(text, values, path):
    """`text` with every generated region replaced; raises on an unknown region name."""

    def replace(match):
        name = match.group(2)
        if name not in values:
            raise SystemExit("docs/update.py: %s: unknown generated region %r (known: %s)" % (path, name, ", ".join(sorted(values))))
        return match.group(1) + values[name] + match.group(4)

    return _REGION.sub(replace, text)


def stale_files(root):
    """The files whose regions differ from the code: [(path, current text, expected text)]."""
    values = regions(root)
    out = []
    for path in DOCS_WITH_REGIONS:
        text = _read(root, path)
        expected = render(text, values, path)
        if expected != text:
            out.append((path, text, expected))
    return out


def main(argv):
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not root:
        raise SystemExit("run with `bazel run //docs:update`")
    for path, _, expected in stale_files(root):
        with open(os.path.join(root, path), "w") as f:
            f.write(expected)
        print("updated " + path)
    # The API reference: stardoc's outputs, given as arguments.
    for generated in argv[1:]:
        name = os.path.basename(generated)[: -len("_api.md")] + ".md"
        target = os.path.join(root, "docs", "api", name)
        with open(generated) as f:
            text = f.read()
        if os.path.exists(target) and _read(root, "docs/api/" + name) == text:
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            f.write(text)
        print("updated docs/api/" + name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
