"""cuda_device_image's files: each at the runfiles name it was given, each the kind it says."""

import unittest

from runfiles import runfiles

from tools.fatbin import fatbin_lib

_PKG = "rules_cuda_stages/tests/device_image/"
_REALS = [75, 80, 86, 90]


def _read(short):
    path = runfiles.Create().Rlocation(_PKG + short)
    with open(path, "rb") as f:
        return f.read()


class ImagesTest(unittest.TestCase):
    def test_fatbin_is_the_librarys_own_with_every_arch(self):
        data = _read("kernels_fatbin.fatbin")
        self.assertEqual(data, _read("_cuda/kernels/driver_api/kernels/kernels.fatbin"))
        images = sorted(fatbin_lib.read_images(data), key=lambda i: (i.arch, i.kind))
        want = sorted([fatbin_lib.Image("elf", a) for a in _REALS] + [fatbin_lib.Image("ptx", 90)], key=lambda i: (i.arch, i.kind))
        self.assertEqual(images, want)

    def test_ptx_is_compute_75_with_the_kernel(self):
        text = _read("images/kernels.compute_75.ptx").decode()
        self.assertIn(".target sm_75", text)
        self.assertIn(".entry scale_add(", text)

    def test_cubins_are_elf_with_the_kernel(self):
        for a in _REALS:
            with self.subTest(arch=a):
                data = _read("images/kernels.sm_%d.cubin" % a)
                self.assertEqual(data[:4], b"\x7fELF")
                self.assertIn(b"scale_add", data)
                self.assertEqual(data, _read("_cuda/kernels/driver_api/kernels/compute_%d/sm_%d/kernels.cubin" % (a, a)))
        self.assertNotEqual(_read("images/kernels.sm_80.cubin"), _read("images/kernels.sm_90.cubin"))


if __name__ == "__main__":
    unittest.main()
