"""The facts docs/ repeats (generated regions) are what the code says; run `bazel run //docs:update` if not."""

import difflib
import os
import unittest

from runfiles import runfiles

from docs import update


class DocsFactsTest(unittest.TestCase):
    def test_generated_regions_are_current(self):
        root = os.path.dirname(runfiles.Create().Rlocation("rules_cuda_stages/MODULE.bazel"))
        stale = update.stale_files(root)
        diff = "".join(
            "".join(difflib.unified_diff(text.splitlines(True), expected.splitlines(True), path, path + " (from the code)"))
            for path, text, expected in stale
        )
        self.assertEqual(stale, [], "docs differ from the code; run `bazel run //docs:update`:\n" + diff)

    def test_every_region_is_used(self):
        root = os.path.dirname(runfiles.Create().Rlocation("rules_cuda_stages/MODULE.bazel"))
        used = set()
        for path in update.DOCS_WITH_REGIONS:
            with open(os.path.join(root, path)) as f:
                used |= {m.group(2) for m in update._REGION.finditer(f.read())}
        self.assertEqual(sorted(set(update.regions(root)) - used), [])


if __name__ == "__main__":
    unittest.main()
