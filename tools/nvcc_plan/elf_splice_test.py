"""elf_splice on small ELF objects laid out as LLVM writes them (sections in order, each aligned, headers last)."""

import struct
import unittest

from tools.nvcc_plan import elf_splice

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")


def _align(n, a):
    return n if a <= 1 else (n + a - 1) // a * a


def _object(sections):
    """An ET_REL ELF64 object: sections [(name, type, align, data)], laid out as LLVM does, .shstrtab last."""
    names = b"\0"
    offsets = []
    for name, _, _, _ in sections + [(".shstrtab", 3, 1, b"")]:
        offsets.append(len(names))
        names += name.encode() + b"\0"
    sections = sections + [(".shstrtab", 3, 1, names)]
    out = bytearray(_EHDR.size)
    headers = [(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    for (name, kind, align, data), name_off in zip(sections, offsets):
        out += b"\0" * (_align(len(out), align) - len(out))
        headers.append((name_off, kind, 0, 0, len(out), len(data), 0, 0, align, 0))
        out += data
    out += b"\0" * (_align(len(out), 8) - len(out))
    shoff = len(out)
    for h in headers:
        out += _SHDR.pack(*h)
    ident = b"\x7fELF\x02\x01\x01" + b"\0" * 9
    _EHDR.pack_into(out, 0, ident, 1, 62, 1, 0, 0, shoff, 0, _EHDR.size, 0, 0, _SHDR.size, len(headers), len(headers) - 1)
    return bytes(out)


def _sections(blob):
    return [(".text", 1, 16, b"\x90" * 13), (".nv_fatbin", 1, 8, blob), (".data", 1, 4, b"abcdef")]


class SpliceTest(unittest.TestCase):
    def test_spliced_equals_written_with_the_data(self):
        blob = bytes(range(200)) * 3
        self.assertEqual(elf_splice.splice(_object(_sections(b"")), ".nv_fatbin", blob), _object(_sections(blob)))

    def test_an_object_without_the_section_is_unchanged(self):
        obj = _object([(".text", 1, 16, b"\x90" * 5)])
        self.assertEqual(elf_splice.splice(obj, ".nv_fatbin", b"x" * 10), obj)

    def test_not_elf_fails(self):
        with self.assertRaisesRegex(elf_splice.SpliceError, "not a little-endian ELF64"):
            elf_splice.splice(b"not an object", ".nv_fatbin", b"")

    def test_an_object_laid_out_otherwise_fails(self):
        obj = bytearray(_object(_sections(b"")))
        # Move the section header table one byte: no longer where LLVM puts it.
        shoff = _EHDR.unpack_from(obj, 0)[6]
        obj[shoff:shoff] = b"\0"
        fields = list(_EHDR.unpack_from(obj, 0))
        fields[6] = shoff + 1
        _EHDR.pack_into(obj, 0, *fields)
        with self.assertRaisesRegex(elf_splice.SpliceError, "not laid out"):
            elf_splice.splice(bytes(obj), ".nv_fatbin", b"x")


if __name__ == "__main__":
    unittest.main()
