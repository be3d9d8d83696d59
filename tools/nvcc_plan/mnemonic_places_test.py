"""The places that spell a mnemonic: only the stage table and its generated file.

Every other file that needs a stage's mnemonic (the rules' action functions,
the reports, the benchmarks, the demo) reads it from the table
(tools/nvcc_plan/stages.py, cuda_rules/private/stages.bzl), so renaming or
adding a stage is one table entry. This test reads the checkout itself (the
directory of the MODULE.bazel in its runfiles; tagged `external`, so it runs
every time) and lists every file that holds a mnemonic as a string literal
("CudaPtxas" or 'CudaPtxas').

Left out, on purpose: the tests (their expectations are written out, so a
changed table fails them), Markdown and docs/ (prose, generated regions, and
measured data), test data.
"""

import os
import re
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


if __name__ == "__main__":
    unittest.main()
