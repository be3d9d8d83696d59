"""CUDA in C++ sources: the objects of .cc, .cpp and .cxx sources carry their device code.

A C++ source compiled by the C++ toolchain instead of nvcc can build without
error and without its kernels (device code behind #ifdef __CUDACC__ or a
CUDA_CALLABLE macro). These checks fail for such an object: the host-only
object of axpy.cpp (a genrule with the C++ toolchain's compiler) shows it.
"""

import glob
import os
import unittest

from runfiles import runfiles

from tools.fatbin import fatbin_lib

_PKG = "rules_cuda_stages/tests/cc_sources/"

# (object, the kernel it defines, mangled): one per kind of source and rule.
_OBJECTS = {
    "staged .cc (cuda_library)": ("_cuda/scale/scale.cc/scale.o", "_Z15cc_scale_kernelPfif"),
    "staged .cpp (cuda_objects)": ("_cuda/axpy_objects/axpy.cpp/axpy.o", "_Z15cpp_axpy_kernelPfPKfif"),
    "unstaged .cxx (staged = False)": ("_cuda/squares/squares.cxx/squares.o", "_Z18cxx_squares_kernelPfi"),
}


def _path(short):
    path = runfiles.Create().Rlocation(_PKG + short)
    if not path or not os.path.exists(path):
        raise FileNotFoundError(_PKG + short)
    return path


def _read(short):
    with open(_path(short), "rb") as f:
        return f.read()


def _check_device_code(test, data, kernel):
    """The object embeds a fatbinary with at least one cubin, and registers `kernel`."""
    images = fatbin_lib.read_images(data)  # raises without a .nv_fatbin section
    test.assertTrue([i for i in images if i.kind == "elf"], "no cubin in the object's fatbinary: %s" % images)
    # The host side of a kernel: cudafe++'s launch stub, under the kernel's name.
    test.assertIn(kernel.encode(), data)
    return images


class DeviceCodeTest(unittest.TestCase):
    def test_objects_of_cxx_sources_carry_a_fatbinary_and_the_kernel(self):
        for what, (obj, kernel) in _OBJECTS.items():
            with self.subTest(what):
                _check_device_code(self, _read(obj), kernel)

    def test_cubins_of_the_cc_source_hold_the_kernel(self):
        images = fatbin_lib.read_images(_read(_OBJECTS["staged .cc (cuda_library)"][0]))
        cubins = sorted(glob.glob(os.path.join(os.path.dirname(_path("_cuda/scale/scale.cc/scale.o")), "compute_*", "sm_*", "*.cubin")))
        self.assertTrue(cubins, "no cubin in the cubin output group of //tests/cc_sources:scale")
        for cubin in cubins:
            with open(cubin, "rb") as f:
                self.assertIn(b"_Z15cc_scale_kernelPfif", f.read(), cubin)
        # One cubin per real arch compiled, each in the object's fatbinary.
        archs = sorted(int(os.path.basename(os.path.dirname(c))[len("sm_"):]) for c in cubins)
        self.assertEqual(archs, sorted(i.arch for i in images if i.kind == "elf"))

    def test_the_check_rejects_a_cxx_object_built_without_device_code(self):
        data = _read("axpy_host_only.o")
        with self.assertRaisesRegex(fatbin_lib.FatbinError, "no .nv_fatbin section"):
            _check_device_code(self, data, "_Z15cpp_axpy_kernelPfPKfif")
        # It built, with the host function and without the kernel's stub.
        self.assertIn(b"cpp_axpy_on_device", data)
        self.assertNotIn(b"_Z15cpp_axpy_kernelPfPKfif", data)


if __name__ == "__main__":
    unittest.main()
