"""A developer's build of one arch of the shipped set runs the shipped set's commands for it.

Compares the stage scripts CudaPlan wrote for one source in a build of the
shipped set and in a build of one arch of it: the scripts named by --same
(that arch's device compile and ptxas, the host compile) must be the same
command, output directories aside (the two builds are two configurations
here; a developer's build on the command line uses CI's), so Bazel's cache
serves them; those named by --differ (the fatbinary: another arch set) must
not be, which shows the two builds compiled different arch sets.
"""

import os
import re
import sys
import unittest

from runfiles import runfiles

# Each option takes the words after it ($(rlocationpaths) expands to several):
# --shipped PATH... and --subset PATH... (the two builds' scripts), --same
# NAME... (scripts that must be the same command), --differ NAME... (that must differ).
_OPTIONS = ("--shipped", "--subset", "--same", "--differ")
ARGS = {}

# bazel-out/<configuration>/: the only part of a path the two configurations may spell differently.
_CONFIGURATION = re.compile(r"bazel-out/[^/\s'\"]+/")


def _parse(argv):
    current = None
    for word in argv:
        if word in _OPTIONS:
            current = ARGS.setdefault(word[2:], [])
        elif current is None:
            raise SystemExit("unexpected argument %r (options: %s)" % (word, ", ".join(_OPTIONS)))
        else:
            current.append(word)


def _scripts(paths):
    r = runfiles.Create()
    out = {}
    for path in paths:
        with open(r.Rlocation(path)) as f:
            out[os.path.basename(path)] = _CONFIGURATION.sub("bazel-out/CONFIGURATION/", f.read())
    return out


class ArchSubsetCommandsTest(unittest.TestCase):
    def test_one_arch_runs_the_shipped_sets_commands(self):
        shipped, subset = _scripts(ARGS.get("shipped", [])), _scripts(ARGS.get("subset", []))
        self.assertGreater(len(shipped), len(subset), "the shipped set's build should have more stages")
        self.assertTrue(ARGS.get("same"), "no script to compare")
        for name in ARGS["same"]:
            self.assertIn(name, subset)
            self.assertIn(name, shipped)
            self.assertEqual(subset[name], shipped[name], name)
        for name in ARGS.get("differ", []):
            self.assertNotEqual(subset[name], shipped[name], name)


if __name__ == "__main__":
    _parse(sys.argv[1:])
    unittest.main(argv=sys.argv[:1])
