"""Module ids (module_id.py): the ids of real builds, their shape, determinism and uniqueness.

The module id is computed in one place: CudaPlan writes it with module_id.py
(the runner uses the same function). Each expected id below was read from
`bazel-bin/.../<source>.module_id` of the target and source named next to it
when the rules still computed it in Starlark (Bazel 7.7.1): ids are part of
every device stage's cache key and of the device code, so they must never
change. runner_test checks one more against its fixture's file at test time.
"""

import re
import unittest

from tools.nvcc_plan import module_id as lib

# (label as written in a BUILD file or str(ctx.label), execroot path of the source, id the rules wrote)
_FROM_BAZEL = [
    (
        "//tests/fidelity:plain_kernel_fast_math_4arch_staged",
        "tests/fidelity/srcs/plain_kernel.cu",
        "_19736e96_15_plain_kernel_cu_cda55c49",
    ),
    (
        "//tools/nvcc_plan:runner_fixture",
        "tools/nvcc_plan/testdata/run/axpy-kernel.cu",
        "_36f5cd68_14_axpy_kernel_cu_5b13768a",
    ),
    (
        "@@rules_cuda_stages_examples~//vector_add:vector_add",
        "external/rules_cuda_stages_examples~/vector_add/vector_add.cu",
        "_9fd64007_13_vector_add_cu_a4c4e29c",
    ),
    (
        "@@rules_cuda_stages_examples~//templated:scale",
        "external/rules_cuda_stages_examples~/templated/scale.cu",
        "_d876b827_8_scale_cu_39aec546",
    ),
    (
        "@@rules_cuda_stages_examples~//cub_reduce:sum",
        "external/rules_cuda_stages_examples~/cub_reduce/sum.cu",
        "_ee210ad9_6_sum_cu_363a0224",
    ),
]


class ModuleIdTest(unittest.TestCase):
    def test_ids_of_real_builds(self):
        for label, path, expected in _FROM_BAZEL:
            with self.subTest(label=label):
                self.assertEqual(lib.module_id(lib.canonical_label(label), lib.short_path(path)), expected)

    def _check_shape(self, the_id, basename, mangled):
        """`the_id` is _<8 hex>_<len(basename)>_<mangled>_<8 hex> (nvcc's own shape and length)."""
        self.assertRegex(the_id, r"^_[0-9a-f]{8}_%d_%s_[0-9a-f]{8}$" % (len(basename.encode()), re.escape(mangled)))

    def test_shape(self):
        the_id = lib.module_id("@@//pkg:vector_add", "pkg/vector_add.cu")
        self.assertEqual(len(the_id), 35)
        self._check_shape(the_id, "vector_add.cu", "vector_add_cu")
        # Characters other than letters and digits become '_'; the directory is not part of the middle.
        self._check_shape(lib.module_id("@@//a/b:t", "a/b/my-kernel.v2.cu"), "my-kernel.v2.cu", "my_kernel_v2_cu")
        self._check_shape(lib.module_id("@@//pkg:t", "../other+/k.cu"), "k.cu", "k_cu")

    def test_deterministic(self):
        self.assertEqual(
            lib.module_id("@@//pkg:vector_add", "pkg/vector_add.cu"), lib.module_id("@@//pkg:vector_add", "pkg/vector_add.cu")
        )

    def test_unique_per_target_and_source(self):
        base = lib.module_id("@@//pkg:vector_add", "pkg/vector_add.cu")
        others = {
            "another target": lib.module_id("@@//pkg:vector_add_2", "pkg/vector_add.cu"),
            "another package": lib.module_id("@@//other:vector_add", "pkg/vector_add.cu"),
            "another path": lib.module_id("@@//pkg:vector_add", "pkg/sub/vector_add.cu"),
            "another file": lib.module_id("@@//pkg:vector_add", "pkg/vector_sub.cu"),
        }
        for what, other in others.items():
            self.assertNotEqual(other, base, what)
        # The first part depends on the label only, the last on the path only.
        self.assertEqual(base[:9], others["another path"][:9])
        self.assertNotEqual(base[:9], others["another target"][:9])
        self.assertEqual(base[-9:], others["another target"][-9:])
        self.assertNotEqual(base[-9:], others["another path"][-9:])

    def test_java_string_hash(self):
        # Values of Java's "...".hashCode(), as unsigned 32-bit.
        self.assertEqual(lib.java_string_hash(b""), 0)
        self.assertEqual(lib.java_string_hash(b"hello"), 99162322)
        self.assertEqual(lib.java_string_hash(b"polygenelubricants"), (-2147483648) & 0xFFFFFFFF)

    def test_every_other_byte_becomes_underscore(self):
        # Starlark's isalnum is ASCII letters and digits; Bazel's strings are UTF-8 bytes.
        self.assertIn("_15_my_kernel_v2_cu_", lib.module_id("@@//a/b:t", "a/b/my-kernel.v2.cu"))
        self.assertIn("_6_k___cu_", lib.module_id("@@//p:t", "p/k\u00e9.cu"))  # é is two bytes

    def test_canonical_label(self):
        self.assertEqual(lib.canonical_label("//pkg:t"), "@@//pkg:t")
        self.assertEqual(lib.canonical_label("//pkg/sub"), "@@//pkg/sub:sub")
        self.assertEqual(lib.canonical_label("@@repo~//pkg:t"), "@@repo~//pkg:t")
        with self.assertRaisesRegex(ValueError, "apparent name"):
            lib.canonical_label("@repo//pkg:t")
        with self.assertRaisesRegex(ValueError, "must start with //"):
            lib.canonical_label("pkg:t")

    def test_short_path(self):
        self.assertEqual(lib.short_path("pkg/k.cu"), "pkg/k.cu")
        self.assertEqual(lib.short_path("bazel-out/k8-fastbuild/bin/pkg/gen.cu"), "pkg/gen.cu")
        self.assertEqual(lib.short_path("external/repo~/pkg/k.cu"), "../repo~/pkg/k.cu")
        self.assertEqual(lib.short_path("bazel-out/k8-opt/bin/external/repo~/g.cu"), "../repo~/g.cu")


if __name__ == "__main__":
    unittest.main()
