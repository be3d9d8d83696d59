"""One .cu built with other flags (variants.bzl): which stages' commands and outputs each flag changes.

A stage's script is its action's whole command, so equal scripts (up to the
configuration's output directory) over equal inputs are equal action keys.

- -c dbg: host debug info only. Every device stage's command, the PTX and the
  cubin are fastbuild's; the host compile gets -g and the object has DWARF.
- --cxxopt=-Wextra (a host-only flag): the preprocess (its host side) and host compile
  change; the device preprocess, cicc and ptxas commands do not.
- --copt=-DFROM_COPT=1 (a define): it reaches the device preprocess too (device
  code sees it, as with nvcc); cicc's and ptxas' commands and outputs do not change.
- -c opt: the toolchain's -O2 for host code; its -DNDEBUG for device code as
  well (the kernel's assert is compiled out); cicc and ptxas commands as before.
- --@rules_cuda_stages//cuda_rules:device_debug=<this target>: nvcc -G, device
  debug info in the PTX.
"""

import os
import re
import struct
import unittest

from runfiles import runfiles

_VARIANTS = ("fastbuild", "dbg", "opt", "cxxopt", "copt_define", "device_debug")
_DEVICE_SCRIPTS = ("cicc", "ptxas")


def _root(variant):
    marker = runfiles.Create().Rlocation("rules_cuda_stages/tests/cc_toolchain/kernel_%s/plan/layout.json" % variant)
    return os.path.dirname(os.path.dirname(marker))


def _files(variant):
    root = _root(variant)
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                data = f.read()
            if name.endswith((".sh", ".json")):
                # The configuration's output directory differs between variants.
                data = re.sub(rb"bazel-out/[^/\s'\"]+/bin", b"bazel-out/CFG/bin", data)
            out[os.path.relpath(path, root)] = data
    return out


def _sections(elf):
    """Section names of an ELF64 little-endian object."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    def header(i):
        return struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize)
    strtab = header(shstrndx)
    names = []
    for i in range(shnum):
        name_off = header(i)[0]
        start = strtab[4] + name_off
        names.append(elf[start:elf.index(b"\0", start)].decode())
    return names


class VariantsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.v = {name: _files(name) for name in _VARIANTS}

    def _script(self, variant, stage):
        found = [p for p in self.v[variant] if p.startswith("plan/" + stage) and p.endswith(".sh")]
        self.assertEqual(len(found), 1, (stage, sorted(self.v[variant])))
        return self.v[variant][found[0]].decode()

    def _output(self, variant, suffix):
        found = [p for p in self.v[variant] if p.endswith(suffix) and not p.startswith("plan/")]
        self.assertEqual(len(found), 1, (suffix, sorted(self.v[variant])))
        return self.v[variant][found[0]]

    def _device_preprocess(self, variant):
        """The preprocess script's device side: its lines that preprocess for an arch."""
        lines = [line for line in self._script(variant, "preprocess").splitlines() if " -D__CUDA_ARCH__=" in line]
        self.assertTrue(lines, variant)
        return "\n".join(lines)

    def assert_same(self, variant, stages):
        for stage in stages:
            self.assertEqual(self._script("fastbuild", stage), self._script(variant, stage), "%s: %s" % (variant, stage))

    def assert_differ(self, variant, stages):
        for stage in stages:
            self.assertNotEqual(self._script("fastbuild", stage), self._script(variant, stage), "%s: %s" % (variant, stage))

    def test_all_variants_have_every_stage(self):
        for variant in _VARIANTS:
            for stage in ("preprocess", "frontend", "host_compile", "embed_fatbin") + _DEVICE_SCRIPTS:
                self._script(variant, stage)

    def test_dbg_is_host_debug_info_only(self):
        self.assert_same("dbg", _DEVICE_SCRIPTS + ("frontend",))
        self.assertEqual(self._output("fastbuild", ".ptx"), self._output("dbg", ".ptx"))
        self.assertEqual(self._output("fastbuild", ".cubin"), self._output("dbg", ".cubin"))
        self.assertIn(" -g ", self._script("dbg", "host_compile"))
        self.assertNotIn(" -g ", self._script("fastbuild", "host_compile"))
        self.assertNotIn(" -G ", self._script("dbg", "host_compile"))
        self.assertIn(".debug_info", _sections(self._output("dbg", "kernel.o")))
        self.assertNotIn(".debug_info", _sections(self._output("fastbuild", "kernel.o")))

    def test_host_only_cxxopt_leaves_device_stages_alone(self):
        self.assert_same("cxxopt", _DEVICE_SCRIPTS + ("frontend", "embed_fatbin"))
        self.assert_differ("cxxopt", ("preprocess", "host_compile"))
        self.assertIn(" -Wextra ", self._script("cxxopt", "host_compile"))
        for stage in _DEVICE_SCRIPTS:
            self.assertNotIn("-Wextra", self._script("cxxopt", stage))
        self.assertEqual(self._device_preprocess("cxxopt"), self._device_preprocess("fastbuild"))

    def test_define_reaches_device_preprocess_only(self):
        self.assert_same("copt_define", ("cicc", "ptxas"))
        self.assertIn(" -DFROM_COPT=1 ", self._device_preprocess("copt_define"))
        self.assertIn(" -DFROM_COPT=1 ", self._script("copt_define", "host_compile"))
        self.assertEqual(self._output("fastbuild", ".ptx"), self._output("copt_define", ".ptx"))

    def test_opt_gives_host_O2_and_NDEBUG_everywhere(self):
        dpp = self._device_preprocess("opt")
        self.assertIn(" -DNDEBUG ", dpp)
        self.assertNotIn(" -O2 ", dpp)
        self.assertNotIn("_FORTIFY_SOURCE", dpp)
        self.assertEqual(dpp.replace(" -DNDEBUG", ""), self._device_preprocess("fastbuild"))
        self.assert_same("opt", ("cicc", "ptxas"))
        self.assertIn(" -O2 ", self._script("opt", "host_compile"))
        # The kernel's assert: in fastbuild's device code, not in opt's.
        self.assertIn(b"__assertfail", self._output("fastbuild", ".ptx"))
        self.assertNotIn(b"__assertfail", self._output("opt", ".ptx"))

    def test_device_debug_is_nvcc_G(self):
        self.assert_differ("device_debug", ("cicc", "ptxas"))
        self.assertIn(b".debug_info", self._output("device_debug", ".ptx"))
        self.assertNotIn(b".debug_info", self._output("fastbuild", ".ptx"))
        self.assertIn(" -G ", self._script("device_debug", "preprocess").replace("'", " ") + " " +
                      self.v["device_debug"]["plan/nvcc_args.json"].decode().replace('"', " "))


if __name__ == "__main__":
    unittest.main()
