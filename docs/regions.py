"""Writes the Markdown files that repeat facts of the code, with their generated regions rendered from the code.

  regions.py --out_dir=DIR README.md docs/cuda_library.md docs/internals.md ...   # from the repository root (an execroot)

//docs:regions runs it; dev/BUILD.bazel checks the files in (`bazel run
//dev:update` rewrites them, //dev:update_test fails when they are stale).
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
from tools.nvcc_plan import stage_graph, stages  # noqa: E402


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
        raise SystemExit("docs/regions.py: %s has no `%s = \"...\"`" % (path, name))
    return match.group(1)


# clang has no virtual/real split: a "virtual arch" of its table is a GPU arch, its one real arch that arch's cubin.
_CLANG_SCOPE = {stages.SOURCE: "source", stages.VIRTUAL: "GPU arch", stages.REAL: "GPU arch (its cubin)"}
_PLACEHOLDERS = {"stem": "<stem>", "name": "<name>", "virtual": "compute_NN", "real": "sm_NN", "arch": "sm_NN"}


def _stage_rows(table):
    rows = ["| mnemonic | per | what |", "| --- | --- | --- |"]
    if table is stages.COMPILE_STAGES:
        rows.append("| `%s` | source | runs `nvcc --dryrun` with the target's flags and writes one script per stage, the module id and the fatbinary's declaration |" % stages.PLAN_MNEMONIC)
    else:
        rows.append("| `%s` | link | runs `nvcc --dryrun -dlink [-dlto]` and writes one script per stage |" % stages.PLAN_MNEMONIC)
    for s in table:
        rows.append("| `%s` | %s | %s |" % (s.mnemonic, _SCOPE[s.scope], s.doc))
    return "\n" + "\n".join(rows) + "\n"


def _clang_stage_rows():
    """clang's table (stages.CLANG_STAGES), with the files each stage writes under the source's directory."""
    rows = ["| mnemonic | per | writes | what |", "| --- | --- | --- | --- |"]
    rows.append("| `%s` | source | the module id, the scripts | runs `clang -###` with the target's flags and `-cuid=<module id>`, and writes one script per stage |" % stages.PLAN_MNEMONIC)
    for s in stages.CLANG_STAGES:
        writes = ", ".join("`%s`" % o.pattern.format(**_PLACEHOLDERS) for o in s.outputs)
        # A doc's "<host>" would be read as an HTML tag.
        doc = s.doc.replace("<", "&lt;").replace(">", "&gt;")
        rows.append("| `%s` | %s | %s | %s |" % (s.mnemonic, _CLANG_SCOPE[s.scope], writes, doc))
    return "\n" + "\n".join(rows) + "\n"


def _runner_stage_keys():
    """The runner's names of the compile's stages (nvcc_plan --run --table's `stage` column), in table order."""
    keys = ["`plan`"]
    for s in stages.COMPILE_STAGES:
        inst = {stages.VIRTUAL: {"virtual": "<compute_NN>"}, stages.REAL: {"virtual": "<compute_NN>", "real": "<sm_MM>"}}.get(s.scope, {})
        keys.append("`%s`" % stage_graph.instance_key(s.name, inst))
    return ", ".join(keys)


def _table_versions(root, path):
    """The CUDA versions (MAJOR.MINOR keys) of a versions table, in its order, as "13.0, 13.5"."""
    return ", ".join(re.findall(r'^    "([0-9]+\.[0-9]+)": \{$', _read(root, path), re.M))


def regions(root):
    """{region name: text} computed from the code."""
    return {
        "stage_table": _stage_rows(stages.COMPILE_STAGES),
        "link_stage_table": _stage_rows(stages.LINK_STAGES),
        "clang_stage_table": _clang_stage_rows(),
        "runner_stage_keys": _runner_stage_keys(),
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
            raise SystemExit("docs/regions.py: %s: unknown generated region %r (known: %s)" % (path, name, ", ".join(sorted(values))))
        return match.group(1) + values[name] + match.group(4)

    return _REGION.sub(replace, text)


def main(argv):
    out_dir = None
    paths = []
    for arg in argv[1:]:
        if arg.startswith("--out_dir="):
            out_dir = arg[len("--out_dir="):]
        else:
            paths.append(arg)
    if not out_dir or not paths:
        raise SystemExit("usage: regions.py --out_dir=DIR FILE.md ...")
    values = regions(".")
    used = set()
    for path in paths:
        text = _read(".", path)
        used |= {m.group(2) for m in _REGION.finditer(text)}
        with open(os.path.join(out_dir, os.path.basename(path)), "w") as f:
            f.write(render(text, values, path))
    unused = sorted(set(values) - used)
    if unused:
        raise SystemExit("docs/regions.py: no file has the regions %s: use them or remove them from regions()" % unused)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
