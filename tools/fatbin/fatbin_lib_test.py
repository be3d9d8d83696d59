"""fatbin_lib against objects cuda_library really built through Bazel."""

import unittest

from runfiles import runfiles

from tools.fatbin import fatbin_lib

Image = fatbin_lib.Image
OBJECT = "rules_cuda_stages/tests/toolchain/_cuda/vector_add_fixed_archs/vector_add/vector_add/vector_add.o"


def _read(rlocation):
    path = runfiles.Create().Rlocation(rlocation)
    if not path:
        raise FileNotFoundError(rlocation)
    with open(path, "rb") as f:
        return f.read()


class FatbinLibTest(unittest.TestCase):
    def test_nvcc_object_holds_exactly_the_requested_images(self):
        # tests/toolchain:vector_add_fixed_archs asks for sm_80 + compute_80 + sm_90.
        data = _read(OBJECT)
        self.assertEqual(
            sorted(fatbin_lib.read_images(data), key=lambda i: (i.arch, i.kind)),
            [Image("elf", 80), Image("ptx", 80), Image("elf", 90)],
        )

    def test_linked_binary_keeps_the_images(self):
        data = _read("rules_cuda_stages/tests/toolchain/vector_add_fixed_archs_demo")
        self.assertIn(Image("elf", 90), fatbin_lib.read_images(data))

    def test_plain_host_object_is_rejected(self):
        data = _read("rules_cuda_stages/tests/toolchain/host_only.o")
        with self.assertRaisesRegex(fatbin_lib.FatbinError, "no .nv_fatbin section"):
            fatbin_lib.read_images(data)

    def test_garbage_is_rejected(self):
        with self.assertRaises(fatbin_lib.FatbinError):
            fatbin_lib.read_images(b"not an object file at all")

    def test_truncated_fatbinary_is_rejected(self):
        data = _read(OBJECT)
        images = fatbin_lib._elf_section(data, ".nv_fatbin")
        with self.assertRaisesRegex(fatbin_lib.FatbinError, "truncated"):
            fatbin_lib.read_images(images[: len(images) // 2])


if __name__ == "__main__":
    unittest.main()
