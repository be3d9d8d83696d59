"""Bazel's real action graph of staged compiles against the stage table (tools/nvcc_plan/stages.py).

For each target, from the actions Bazel registered (stage_graph.bzl's aspect):
every stage instance the table gives has exactly one action, with the table's
mnemonic and outputs, and it reads exactly the outputs the table says it
reads (other stages' and CudaPlan's), so the rules, the runner (which executes
the table's graph) and the reports cannot disagree about the stages.
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
            for link in links:
                with self.subTest(target=graph["label"], device_link=link.name):
                    self._check_link(link, actions)
            for layout in layouts:
                with self.subTest(target=graph["label"], src=layout.src_short_path):
                    self._check(layout, actions)
                    checked += 1
        self.assertGreaterEqual(checked, 3)

    def _check_link(self, link, actions):
        """A device link's actions: one per link stage instance, the table's mnemonic and outputs."""
        key_of = {path: key for key, path in link.files.items()}
        mine = [a for a in actions if any(p in key_of for p in a["outputs"])]
        expected = {}
        for stage in stages.LINK_STAGES:
            for inst in stages.instances(stage, link_archs=link.archs):
                outputs = sorted(stages.instance_key(o.key, inst) for o in stage.outputs)
                expected[tuple(outputs)] = stage.mnemonic
        expected[tuple(sorted(o.key for o in stages.LINK_PLAN_OUTPUTS))] = None  # CudaPlan, with the scripts
        seen = {}
        for a in mine:
            keys = tuple(sorted(key_of[p] for p in a["outputs"] if p in key_of))
            self.assertIn(keys, expected, "outputs of a %s action" % a["mnemonic"])
            self.assertEqual(a["mnemonic"], expected[keys] or stages.PLAN_MNEMONIC)
            seen[keys] = True
        self.assertEqual(sorted(seen), sorted(expected))

    def _check(self, layout, actions):
        key_of = {path: key for key, path in layout.files.items()}
        producer = stages.compile_producers(layout.archs)
        mine = [a for a in actions if any(p in key_of for p in a["outputs"])]

        # CudaPlan writes the module id, the nvcc arguments and every script.
        plans = [a for a in mine if a["mnemonic"] == stages.PLAN_MNEMONIC]
        self.assertEqual(len(plans), 1)
        self.assertEqual(
            sorted(plans[0]["outputs"]),
            sorted([layout.files[o.key] for o in stages.PLAN_OUTPUTS] + list(layout.scripts.values())),
        )

        expected_reads = stages.compile_reads(layout.archs, stub=layout.stub_arch)
        seen = {}
        for a in mine:
            if a is plans[0]:
                continue
            keys = sorted(key_of[p] for p in a["outputs"])
            stage_key = producer[keys[0]]
            self.assertNotIn(stage_key, seen, "two actions for %s" % stage_key)
            seen[stage_key] = a
            kind = stage_key.split("/")[0]
            self.assertEqual(a["mnemonic"], stages.mnemonic(kind), stage_key)
            self.assertEqual(keys, sorted(k for k, s in producer.items() if s == stage_key), "outputs of " + stage_key)
            self.assertIn(layout.scripts[stage_key], a["inputs"], "%s runs its script" % stage_key)
            read = sorted(key_of[p] for p in a["inputs"] if p in key_of)
            self.assertEqual(read, sorted(expected_reads[stage_key]), "what %s reads" % stage_key)
        self.assertEqual(sorted(seen), sorted(expected_reads), "the stage instances")


if __name__ == "__main__":
    unittest.main()
