"""The scaling benchmark's generated sources, compiled for real by the rules (sm_90).

The objects come from bench/compile_bench:scaling_smoke_* (a genrule runs
scaling_gen.py): sources 0-7, one of each kind of kernel, staged, and source 0
with staged = False. Each must be an ELF object that defines its launcher and
its kernel's host stub, and embeds device code (.nv_fatbin).
"""

import os
import unittest

from bench.compile_bench import scaling_gen

# How many sources each mode compiled (bench/compile_bench/corpus/BUILD.bazel).
STAGED = len(scaling_gen.KINDS)
UNSTAGED = 1


def _objects(env):
    root = os.environ["TEST_SRCDIR"]
    return [os.path.join(root, p) for p in os.environ[env].split()]


class ScalingSmokeTest(unittest.TestCase):
    def check(self, env, n):
        objects = _objects(env)
        self.assertEqual(len(objects), n, objects)
        by_source = {}
        for path in objects:
            name = os.path.basename(path)
            self.assertTrue(name.endswith(".o"), path)
            by_source[name[: -len(".o")]] = path
        self.assertEqual(sorted(by_source), [scaling_gen.source_name(i) for i in range(n)])
        for i in range(n):
            src = scaling_gen.source_name(i)
            with open(by_source[src], "rb") as f:
                data = f.read()
            with self.subTest(source=src):
                self.assertEqual(data[:4], b"\x7fELF")
                # Mangled C++ names: the launcher, and the kernel (its host-side stub).
                launcher = "launch_%s" % src
                kernel = "%s_%s" % (src, scaling_gen.kind_of(i))
                self.assertIn(("%d%s" % (len(launcher), launcher)).encode(), data)
                self.assertIn(("%d%s" % (len(kernel), kernel)).encode(), data)
                self.assertIn(b".nv_fatbin", data)

    def test_staged_every_kind(self):
        self.assertEqual(len({scaling_gen.kind_of(i) for i in range(STAGED)}), len(scaling_gen.KINDS))
        self.check("SCALING_SMOKE_STAGED", STAGED)

    def test_unstaged(self):
        self.check("SCALING_SMOKE_UNSTAGED", UNSTAGED)


if __name__ == "__main__":
    unittest.main()
