"""Lists the device images a CUDA fatbinary holds (kind and arch of each).

Reads either a fatbinary file (`.fatbin`, starting with its magic) or a host
object/executable (ELF64) whose `.nv_fatbin` section holds one or more (or, in
an object compiled with -rdc=true, its `__nv_relfatbin` section).
"""

import dataclasses
import struct

FATBIN_MAGIC = 0xBA55ED50
_KINDS = {1: "ptx", 2: "elf", 4: "ltoir", 8: "ltoir"}  # LTO IR: 4 (CUDA 12), 8 (CUDA 13)


class FatbinError(ValueError):
    """The input is not a fatbinary or an ELF file that holds one."""


@dataclasses.dataclass(frozen=True)
class Image:
    kind: str  # "ptx", "elf" (a cubin) or "ltoir"
    arch: int  # e.g. 80 for sm_80 / compute_80

    @property
    def name(self):
        return ("compute_%d" if self.kind == "ptx" else "sm_%d") % self.arch


def _elf_section(data, wanted):
    if data[:4] != b"\x7fELF":
        raise FatbinError("not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise FatbinError("only little-endian ELF64 is supported")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff == 0 or shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        raise FatbinError("truncated ELF section table")
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    for name_off, _, _, _, offset, size in headers:
        end = data.find(b"\0", strtab + name_off)
        if data[strtab + name_off : end].decode("ascii", "replace") == wanted:
            if offset + size > len(data):
                raise FatbinError("section %s runs past the end of the file" % wanted)
            return data[offset : offset + size]
    return None


def _fatbin_images(blob):
    images = []
    pos = 0
    while pos + 16 <= len(blob):
        magic, _, header_size, fat_size = struct.unpack_from("<IHHQ", blob, pos)
        if magic != FATBIN_MAGIC:
            if not images:
                raise FatbinError("no fatbinary magic (0x%08x) at offset %d" % (FATBIN_MAGIC, pos))
            break  # padding after the last fatbinary of a section
        entry = pos + header_size
        end = entry + fat_size
        if end > len(blob):
            raise FatbinError("truncated fatbinary at offset %d" % pos)
        while entry < end:
            kind, _, entry_header, payload = struct.unpack_from("<HHIQ", blob, entry)
            (arch,) = struct.unpack_from("<I", blob, entry + 28)
            if kind not in _KINDS or entry_header < 32:
                raise FatbinError("unknown fatbinary entry kind %d at offset %d" % (kind, entry))
            images.append(Image(_KINDS[kind], arch))
            entry += entry_header + payload
        pos = (end + 7) & ~7
    return images


def read_images(data):
    """Returns the device images in `data` (bytes of a fatbinary or an ELF file)."""
    if len(data) >= 4 and struct.unpack_from("<I", data, 0)[0] == FATBIN_MAGIC:
        return _fatbin_images(data)
    section = _elf_section(data, ".nv_fatbin")
    if section is None:
        section = _elf_section(data, "__nv_relfatbin")  # a relocatable device code object's
    if section is None:
        raise FatbinError("no .nv_fatbin section: not compiled from CUDA sources")
    return _fatbin_images(section)
