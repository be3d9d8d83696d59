"""The fuzzer's cases: every nvcc option it draws is one cuda_library accepts for the case's CUDA version, and a
case is a function of (seed, index, version) alone."""

import random
import unittest

from tests.fidelity.fuzz import fuzz_cases
from tools.nvcc_plan import nvcc_options
from tools.nvcc_plan import nvcc_options_table


class FuzzCasesTest(unittest.TestCase):
    def test_every_drawn_option_is_known_to_the_planner(self):
        for version in fuzz_cases.ARCHS:
            known = nvcc_options.table_options(nvcc_options_table, version)
            for _, name, versions, draw in fuzz_cases.OPTION_DRAWS:
                if versions is not None and version not in versions:
                    continue
                for i in range(40):
                    words = draw(random.Random("%s/%s/%d" % (version, name, i)))
                    with self.subTest(version=version, words=words):
                        self.assertEqual([], nvcc_options.unknown_options(words, known))

    def test_whole_cases_are_known_to_the_planner(self):
        for version in fuzz_cases.ARCHS:
            known = nvcc_options.table_options(nvcc_options_table, version)
            for index in range(300):
                args = fuzz_cases.draw(7, index, version).nvcc_args()
                with self.subTest(version=version, index=index, args=args):
                    self.assertEqual([], nvcc_options.unknown_options(args, known))

    def test_a_case_is_a_function_of_seed_index_and_version(self):
        for draw, version in ((fuzz_cases.draw, "13.0"), (fuzz_cases.draw_clang, "12.4")):
            a = [draw(3, i, version) for i in range(50)]
            b = [draw(3, i, version) for i in reversed(range(50))][::-1]
            self.assertEqual(a, b)
            self.assertNotEqual([c.args() for c in a], [draw(4, i, version).args() for i in range(50)])

    def test_clang_cases_use_the_rules_arch_forms(self):
        for index in range(300):
            case = fuzz_cases.draw_clang(1, index, "12.4")
            for arch in case.archs:
                self.assertRegex(arch, r"^(sm|compute)_[0-9]+a?$")
                self.assertIn(arch.split("_")[1], fuzz_cases.CLANG_ARCHS["12.4"])
            self.assertNotIn("managed", case.features)
            self.assertEqual(case.compiler, "clang")


if __name__ == "__main__":
    unittest.main()
