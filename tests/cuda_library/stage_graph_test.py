"""Bazel's real action graph of staged compiles and device links against the stage table's graph.

For each target, from the actions Bazel registered (stage_graph.bzl's aspect):
every action the unit's graph has (tools/nvcc_plan/stage_graph.py, the code
the rules declared it with) has exactly one Bazel action, with the stage's
mnemonic, outputs and script, and it reads exactly the outputs the graph says
it reads (other stages' and CudaPlan's); no other stage action exists. So
what run_stage registers is the graph the runner executes and the reports
read.
"""

import glob
import json
import os
import unittest

from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import stages


def _graphs():
    root = os.environ["TEST_SRCDIR"]
    found = sorted(glob.glob(os.path.join(root, "_main", "tests", "**", "*.action_graph.json"), recursive=True))
    if not found:
        raise AssertionError("no *.action_graph.json in the runfiles")
    for path in found:
        with open(path) as f:
            yield json.load(f)


class StageGraphTest(unittest.TestCase):
    def test_actions_follow_the_table(self):
        checked = 0
        for graph in _graphs():
            actions = graph["actions"]
            written = [json.loads(a["content"]) for a in actions if "content" in a]
            # A source's layout names it; a device link's (rdc libraries) names its inputs.
            layouts = [layout_lib.compile_layout_from_json(w, graph["label"]) for w in written if "src" in w]
            links = [layout_lib.link_layout_from_json(w, graph["label"]) for w in written if "inputs" in w]
            self.assertEqual(len(layouts) + len(links), len(written))
            self.assertTrue(layouts, "%s wrote no layout" % graph["label"])
            for layout in layouts + links:
                with self.subTest(target=graph["label"], unit=layout.subject):
                    self._check(layout, actions)
                    checked += 1
        self.assertGreaterEqual(checked, 3)

    def _check(self, layout, actions):
        """The unit's actions: CudaPlan writing every script, then one action per instance of its graph, with
        the stage's mnemonic, its outputs, its script, and exactly the outputs the graph says it reads."""
        key_of = {path: key for key, path in layout.files.items()}
        mine = [a for a in actions if any(p in key_of for p in a["outputs"])]
        graph = layout.graph()
        plans = [a for a in mine if a["mnemonic"] == stages.PLAN_MNEMONIC]
        self.assertEqual(len(plans), 1)
        self.assertEqual(
            sorted(plans[0]["outputs"]),
            sorted([layout.files[o.key] for o in layout.stage_table.plan_outputs] + list(layout.scripts.values())),
        )
        expected = {tuple(sorted(a["outputs"])): a for a in graph["actions"]}
        seen = {}
        for a in mine:
            if a is plans[0]:
                continue
            keys = tuple(sorted(key_of[p] for p in a["outputs"]))
            self.assertIn(keys, expected, "outputs of a %s action" % a["mnemonic"])
            action = expected[keys]
            self.assertNotIn(action["script"], seen, "two actions for %s" % action["script"])
            seen[action["script"]] = True
            self.assertEqual(a["mnemonic"], action["stage"].mnemonic, action["script"])
            self.assertIn(layout.scripts[action["script"]], a["inputs"], "%s runs its script" % action["script"])
            read = sorted(key_of[p] for p in a["inputs"] if p in key_of)
            self.assertEqual(read, sorted(action["reads"]), "what %s reads" % action["script"])
        self.assertEqual(sorted(seen), sorted(a["script"] for a in graph["actions"]), "the stage instances")


if __name__ == "__main__":
    unittest.main()
