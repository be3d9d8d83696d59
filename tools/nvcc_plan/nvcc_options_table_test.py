"""The planner's nvcc options are each toolkit's own: the table and the check.

(The table and its Starlark copy are what gen_nvcc_options.py writes from these
toolkits' help: //dev:update_test.)

Args: VERSION=NVCC=ARCHS for each CUDA version of the table (//tools/nvcc_plan:nvcc_<version> and the
JSON of its toolchain's supported_archs).
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from tools.nvcc_plan import gen_nvcc_options
from tools.nvcc_plan import nvcc_options
from tools.nvcc_plan import nvcc_options_table

NVCCS = {}  # version -> nvcc path
TOOLCHAIN_ARCHS = {}  # version -> the toolchain's supported_archs (read by its repository rule)


def _accepts(nvcc, options):
    """Whether nvcc's option parser takes `options` (a dry run; a missing host compiler fails later, not here)."""
    workdir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    with open(os.path.join(workdir, "k.cu"), "w") as f:
        f.write("__global__ void k() {}\n")
    proc = subprocess.run([nvcc, "--dryrun", *options, "-c", "k.cu", "-o", "k.o"], cwd=workdir, capture_output=True,
                          text=True, check=False)
    text = proc.stderr + proc.stdout
    for refusal in ("Unknown option", "no argument expected", "is not defined for option"):
        if refusal in text:
            return False, text
    return True, text


class NvccOptionsTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.helps = {v: gen_nvcc_options.nvcc_help(n) for v, n in NVCCS.items()}
        cls.options, cls.versions = gen_nvcc_options.table(cls.helps)

    def test_table_has_every_toolkit(self):
        # That the table and its Starlark copy are what these toolkits' help gives: //dev:update_test.
        self.assertEqual(sorted(NVCCS), sorted(nvcc_options_table.VERSIONS))

    def test_help_parses(self):
        for version, text in self.helps.items():
            options, archs = nvcc_options.parse_help(text)
            # Options every version has, with and without a value.
            for name, takes_value in (("--optimize", True), ("-O", True), ("-lineinfo", False), ("-Xcompiler", True),
                                      ("--use_fast_math", False), ("-maxrregcount", True), ("-std", True)):
                self.assertEqual(options.get(name), takes_value, "%s in CUDA %s's help" % (name, version))
            self.assertIn("sm_90", archs, version)
            self.assertIn("compute_90a", archs, version)
            self.assertNotIn("sm_20", archs, version)

    def test_toolkit_repositories_read_the_archs_of_their_help(self):
        for version, text in self.helps.items():
            _, archs = nvcc_options.parse_help(text)
            self.assertTrue(archs, version)
            self.assertEqual(TOOLCHAIN_ARCHS[version], archs, "CUDA %s: the toolchain's supported_archs" % version)

    def test_undocumented_options_are_accepted(self):
        for version, nvcc in NVCCS.items():
            for name, takes_value in nvcc_options.UNDOCUMENTED.items():
                ok, text = _accepts(nvcc, [name, "-v"] if takes_value else [name])
                self.assertTrue(ok, "CUDA %s's nvcc refuses %s:\n%s" % (version, name, text))
            # The check can fail: an option nvcc does not know.
            ok, text = _accepts(nvcc, ["--not-an-nvcc-option"])
            self.assertFalse(ok, text)

    def test_options_outside_the_table_are_refused_by_nvcc(self):
        for case_options, verdict in nvcc_options.CASES:
            for option, why in verdict:
                if why != "not an nvcc option":
                    continue
                for version, nvcc in NVCCS.items():
                    ok, text = _accepts(nvcc, [option])
                    self.assertFalse(ok, "CUDA %s's nvcc takes %s, which the planner calls unknown" % (version, option))

    def test_cases(self):
        known = nvcc_options.table_options(nvcc_options_table, "13.0")
        for options, expected in nvcc_options.CASES:
            self.assertEqual(nvcc_options.unknown_options(options, known), [tuple(e) for e in expected], options)

    def test_versions(self):
        # An option of one version only is unknown to another; a version the table lacks gets every version's.
        only = {name: vs for name, (_, vs) in nvcc_options_table.OPTIONS.items() if len(vs) < len(self.versions)}
        self.assertTrue(only, "every option is in every version: the per-version check checks nothing")
        name, vs = sorted(only.items())[0]
        missing = [v for v in self.versions if v not in vs][0]
        self.assertIn(name, nvcc_options.table_options(nvcc_options_table, vs[0]))
        self.assertNotIn(name, nvcc_options.table_options(nvcc_options_table, missing))
        self.assertIn(name, nvcc_options.table_options(nvcc_options_table, "99.9"))


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        version, path, archs = arg.split("=")
        NVCCS[version] = os.path.abspath(path)
        with open(archs) as f:
            TOOLCHAIN_ARCHS[version] = json.load(f)
    unittest.main(argv=sys.argv[:1])
