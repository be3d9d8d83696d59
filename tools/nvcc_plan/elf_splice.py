"""Replaces one section's contents in a relocatable ELF object: CudaClangEmbed, without llvm-objcopy.

`splice(obj, section, data)` returns the object with `section`'s bytes
replaced by `data` and every later section moved, the way LLVM lays out an
object it writes (and `llvm-objcopy --update-section` rewrites one): sections
in file order, each at the next offset aligned to its sh_addralign (NOBITS
sections too, then taking no room), the section header table last, aligned to 8. For an
object clang wrote, the result is byte-identical to the object clang writes
when given `data` in the first place (//tests/clang's fidelity tests check
the staged object against clang's own one-shot object; issue 33's research
found llvm-objcopy --update-section's output the same, and GNU objcopy's
not: it reorders .strtab and .shstrtab).

A host object without the section (clang registers nothing for a source with
no kernel or device variable) is returned unchanged: clang's own object for
such a source has no fatbinary either.

Only what the host compile gives it is accepted: a little-endian ELF64
relocatable object (ET_REL) whose sections already sit at exactly those
offsets, with no program headers; anything else fails, naming why, instead
of guessing.

Usage: elf_splice.py SECTION DATA_FILE IN_OBJ OUT_OBJ
"""

import struct
import sys

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
SHT_NOBITS = 8


class SpliceError(Exception):
    pass


def _align(value, alignment):
    return value if alignment <= 1 else (value + alignment - 1) // alignment * alignment


def _layout(order, shdrs, sizes, start):
    """{index: offset} for sections in `order`, laid out from `start`; and the end."""
    offsets = {}
    cur = start
    for i in order:
        # The padding before a NOBITS section is written too: it moves the end.
        offsets[i] = cur = _align(cur, shdrs[i][8])
        if shdrs[i][1] != SHT_NOBITS:
            cur += sizes[i]
    return offsets, cur


def read_sections(obj):
    """(ELF header fields, section headers as lists, section names) of a little-endian ELF64 relocatable object.

    Section header fields: sh_name, sh_type, sh_flags, sh_addr, sh_offset,
    sh_size, sh_link, sh_info, sh_addralign, sh_entsize. Anything else than
    such an object raises SpliceError.
    """
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        raise SpliceError("not a little-endian ELF64 object")
    ehdr = _EHDR.unpack_from(obj, 0)
    e_type, phnum, shoff, shentsize, shnum, shstrndx = ehdr[1], ehdr[10], ehdr[6], ehdr[11], ehdr[12], ehdr[13]
    if e_type != 1 or phnum != 0:
        raise SpliceError("not a relocatable object (ET_REL without program headers)")
    if shentsize != _SHDR.size or shnum == 0 or shstrndx >= shnum:
        raise SpliceError("unexpected section header table")
    shdrs = [list(_SHDR.unpack_from(obj, shoff + i * shentsize)) for i in range(shnum)]
    strtab = shdrs[shstrndx]
    table = obj[strtab[4] : strtab[4] + strtab[5]]
    names = [table[h[0] : table.index(b"\0", h[0])].decode() for h in shdrs]
    return ehdr, shdrs, names


def splice(obj, section, data):
    (ident, e_type, machine, version, entry, phoff, shoff, flags, ehsize, phentsize, phnum, shentsize, shnum,
     shstrndx), shdrs, names = read_sections(obj)
    matches = [i for i in range(1, shnum) if names[i] == section]
    if not matches:
        # clang registers nothing for a source without kernels or device
        # variables (whole-program code): no section, and its one-shot object
        # holds no fatbinary either. The object is the host object.
        return obj
    if len(matches) != 1:
        raise SpliceError("the object has %d sections named %s" % (len(matches), section))
    target = matches[0]
    if shdrs[target][1] == SHT_NOBITS:
        raise SpliceError("%s has no contents (NOBITS)" % section)
    # File order: by offset, ties (empty sections) in section index order.
    order = sorted(range(1, shnum), key=lambda i: (shdrs[i][4], i))
    sizes = {i: shdrs[i][5] for i in order}
    # The object must already be laid out this way, or moving sections would change more than the one.
    old, end = _layout(order, shdrs, sizes, ehsize)
    if any(old[i] != shdrs[i][4] for i in order) or _align(end, 8) != shoff:
        raise SpliceError("the object's sections are not laid out the way LLVM writes them")
    sizes[target] = len(data)
    new, end = _layout(order, shdrs, sizes, ehsize)
    new_shoff = _align(end, 8)
    out = bytearray(new_shoff + shnum * shentsize)
    out[:ehsize] = obj[:ehsize]
    for i in order:
        if shdrs[i][1] == SHT_NOBITS:
            continue
        chunk = data if i == target else obj[shdrs[i][4] : shdrs[i][4] + shdrs[i][5]]
        out[new[i] : new[i] + len(chunk)] = chunk
    _EHDR.pack_into(out, 0, ident, e_type, machine, version, entry, phoff, new_shoff, flags, ehsize, phentsize, phnum,
                    shentsize, shnum, shstrndx)
    for i in range(shnum):
        h = list(shdrs[i])
        if i in new:
            h[4] = new[i]
        if i == target:
            h[5] = len(data)
        _SHDR.pack_into(out, new_shoff + i * shentsize, *h)
    return bytes(out)


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__.strip().splitlines()[-1] + "\n")
        return 2
    section, data_file, in_obj, out_obj = argv[1:]
    with open(data_file, "rb") as f:
        data = f.read()
    with open(in_obj, "rb") as f:
        obj = f.read()
    try:
        out = splice(obj, section, data)
    except SpliceError as e:
        sys.stderr.write("elf_splice: %s: %s\n" % (in_obj, e))
        return 1
    with open(out_obj, "wb") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
