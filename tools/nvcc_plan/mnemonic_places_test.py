"""The places that spell a mnemonic, a stage's name or an output key: only the stage table and its generated file.

Every other file that needs a stage's mnemonic (the rules, the reports, the
benchmarks, the demo) reads it from the table (tools/nvcc_plan/stages.py,
cuda_rules/private/stages.bzl), so renaming or adding a stage is one table
entry. So does code that names a stage's layout key or an output's key
(stages.KEYS.obj, stage_graph.instance_key(KEYS.cubin, ...)). This test
reads the checkout itself (the directory of the MODULE.bazel in its runfiles;
tagged `external`, so it runs every time) and lists every file that holds a
mnemonic as a string literal ("CudaPtxas" or 'CudaPtxas'), or uses a stage
name or output key as a string where code looks a file up or builds a key:
files["obj"], scripts["embed_fatbin"], "cubin/" + ..., instance_key("ptx", ...),
.name == "cicc" (the tools' own names, `ptxas` or `fatbinary` as programs,
are not such uses).

Left out, on purpose: the tests (their expectations are written out, so a
changed table fails them), Markdown and docs/ (prose, generated regions, and
measured data), test data.
"""

import os
import re
import tempfile
import unittest

from runfiles import runfiles

from tools.nvcc_plan import stages

ALLOWED = ("tools/nvcc_plan/stages.py", "cuda_rules/private/stages.bzl")

_SKIPPED_DIRS = ("docs", "tests", "testdata")


def _checkout():
    marker = runfiles.Create().Rlocation("rules_cuda_stages/MODULE.bazel")
    return os.path.dirname(os.path.realpath(marker))


def _skipped(path):
    parts = path.split("/")
    name = parts[-1]
    return (
        any(p in _SKIPPED_DIRS for p in parts[:-1])
        or name.endswith(".md")
        or re.search(r"_test\.(py|bzl|sh)$", name) is not None
    )


def _files(root):
    for directory, dirs, names in os.walk(root):
        # Not followed: .git, bazel-* output links (os.walk lists links to directories but does not enter them).
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = os.path.relpath(os.path.join(directory, name), root)
            if not _skipped(path) and not os.path.islink(os.path.join(directory, name)):
                yield path


def spellings(root):
    """{path: [mnemonics it spells as a string literal]} of every file of the checkout that is not left out."""
    pattern = re.compile(r"""(["'])(%s)\1""" % "|".join(re.escape(m) for m in stages.pipeline_mnemonics()))
    found = {}
    for path in _files(root):
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue  # binary
        hits = sorted({m for _, m in pattern.findall(text)})
        if hits:
            found[path] = hits
    return found


def _names_and_keys():
    names = {s.name for s in stages.COMPILE_STAGES + stages.CLANG_STAGES + stages.LINK_STAGES}
    return sorted(names | set(vars(stages.KEYS).values()))


def key_spellings(root):
    """{path: [stage names and output keys it uses as strings to look up files or build keys]}."""
    words = "|".join(re.escape(w) for w in _names_and_keys())
    q = r"""["']"""
    pattern = re.compile(
        r"(?:(?:files|scripts)(?:\.get\(|\[)\s*%(q)s(%(w)s)%(q)s"  # files["obj"], scripts.get("stub")
        r"|%(q)s(%(w)s)/(?:[{%%]|%(q)s)"  # "cubin/" + ..., "cubin/{}/{}", "ptx/%%s"
        r"|instance_key\(\s*%(q)s(%(w)s)%(q)s"  # instance_key("ptx", ...)
        r"|\.name\s*==\s*%(q)s(%(w)s)%(q)s)"  # stage.name == "cicc"
        % {"q": q, "w": words}
    )
    found = {}
    for path in _files(root):
        if path in ALLOWED or not path.endswith((".py", ".bzl")):
            continue
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        hits = sorted({w for m in pattern.findall(text) for w in m if w})
        if hits:
            found[path] = hits
    return found


class MnemonicPlacesTest(unittest.TestCase):
    def test_only_the_table_spells_a_mnemonic(self):
        found = spellings(_checkout())
        # The table and its generated file spell every one (and the scan sees them).
        for path in ALLOWED:
            self.assertEqual(found.get(path), sorted(stages.pipeline_mnemonics()), path)
        others = {p: m for p, m in found.items() if p not in ALLOWED}
        self.assertEqual(
            others,
            {},
            "these files spell a mnemonic; read it from the stage table instead "
            "(stages.PTXAS.mnemonic in Python, PTXAS.mnemonic from cuda_rules/private/stages.bzl)",
        )

    def test_only_the_table_spells_a_stage_name_or_an_output_key(self):
        self.assertEqual(
            key_spellings(_checkout()),
            {},
            "these files name a stage or an output by a string where they look a file up or build a key; "
            "use the table instead (stages.KEYS.obj, stage_graph.instance_key(stages.KEYS.cubin, inst), "
            "a record's .name; KEYS from cuda_rules/private/stages.bzl)",
        )

    def test_the_scan_finds_such_a_use(self):
        pattern_check = {"files[\"obj\"]", "scripts[\"embed_fatbin\"]", "\"cubin/\" + arch", "instance_key(\"ptx\", inst)"}
        with tempfile.TemporaryDirectory() as d:
            for i, line in enumerate(sorted(pattern_check)):
                with open(os.path.join(d, "f%d.py" % i), "w") as f:
                    f.write("x = " + line + "\n")
            with open(os.path.join(d, "ok.py"), "w") as f:
                f.write('tool = toolkit.tool("ptxas")\nargv = ["fatbinary", "-o", out]\n')
            self.assertEqual(sorted(key_spellings(d)), ["f0.py", "f1.py", "f2.py", "f3.py"])


if __name__ == "__main__":
    unittest.main()
