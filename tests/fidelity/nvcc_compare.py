"""Staged outputs against nvcc's: the comparisons fidelity_test, runner_test and the fidelity fuzzer share.

Device code: PTX with debug sections' `.b8` strings decoded (decode_b8), and
the cubin a line-info ptxas writes where no source exists
(ptxas_without_sources). The host object (object_differences): the two objects hold the same code, data, symbols and relocations but for how
the fatbinary's wrapper is named (docs/internals.md, "The host object and the
fatbinary"): nvcc's object defines the wrapper as a static (`__fatDeviceText`)
and refers to it by its section; the staged one is the host compile's object
linked (ld -r) with fatbinary's own, and the host code refers to the wrapper
by a hidden symbol named from the module id, which the fatbinary's object
defines as an alias of the static. ld -r merges the two objects' .comment
sections and keeps one file symbol per input (the fatbinary's object was
compiled from stdin). Everything else must be equal once the rules' module id
is spelled as nvcc's (both ids have the same length).

The embedded fatbinary (.nv_fatbin) is not compared here: fatbinary
compresses the PTX it embeds, so the module id cannot be swapped inside it.
Its callers compare the fatbinary's inputs and command instead.

content_sections: the sections of an object that hold bytes (clang's objects,
compared section by section where the staged one is joined with more).
"""

import os
import re
import struct
import subprocess
import tempfile

from tools.nvcc_plan import elf_splice


def read(path):
    with open(path, "rb") as f:
        return f.read()


def swap(data, ours, theirs):
    """`data` with the module id `ours` spelled `theirs` (both str, of one length)."""
    assert len(ours) == len(theirs), (ours, theirs)
    return data.replace(ours.encode(), theirs.encode())


def first_difference(ours, theirs):
    return next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))


_B8_RUN = re.compile(rb"(?:\.b8 [0-9]+(?:,[0-9]+)*\n)+")


def decode_b8(ptx, nvcc_id, our_id):
    """Replaces each run of `.b8 n,n,...` lines by the bytes it spells, quoted.

    Runs are decoded on both sides, so the comparison stays exact; the module
    id inside them is then spelled nvcc's way on both sides.
    """
    def decode(match):
        values = bytes(int(v) for v in re.findall(rb"[0-9]+", match.group(0).replace(b".b8", b"")))
        return b"<b8:" + values.replace(our_id.encode(), nvcc_id.encode()) + b">\n"

    return _B8_RUN.sub(decode, ptx)


def has_line_info(argv):
    return any(a in ("--generate-line-info", "-lineinfo", "-g", "-G", "--device-debug") for a in argv)


def ptxas_without_sources(ptxas, argv, ptx_path, ptx_name, out_name, tmp=None):
    """Runs nvcc's ptxas command `argv` again on `ptx_path`, where no source exists; returns the cubin.

    Like the staged CudaPtxas action, which only has the PTX: the files named
    in the PTX's .file directives (/proc/self/cwd/...) do not exist there. With
    line info, ptxas stat()s them and records their mtimes and sizes, so
    nvcc's own cubin depends on when the checkout was made. With -G, ptxas
    also records its command line, the cubin's own file name included; nvcc's
    names depend on the whole arch set (x.sm_90.cubin alone,
    x.compute_90.cubin among others), the staged ones do not, so the rerun
    uses the staged files' names (`ptx_name`, `out_name`: relative paths).
    """
    empty = tempfile.mkdtemp(prefix="ptxas.", dir=tmp or os.environ.get("TEST_TMPDIR"))
    src = [a for a in argv if a.endswith(".ptx")][-1]
    cmd = list(argv)
    cmd[0] = ptxas
    # Relative names, as the staged script gives them: with -G and -rdc, ptxas names a debug
    # section from a hash of the PTX's name as given (.nv_debug_ptx_txt.<hash>).
    for name in (ptx_name, out_name):
        os.makedirs(os.path.join(empty, os.path.dirname(name)), exist_ok=True)
    with open(ptx_path, "rb") as f_in, open(os.path.join(empty, ptx_name), "wb") as f_out:
        f_out.write(f_in.read())
    cmd[cmd.index(src)] = ptx_name
    out = os.path.join(empty, out_name)
    cmd[cmd.index("-o") + 1] = out_name
    subprocess.run(cmd, cwd=empty, check=True, capture_output=True)
    return read(out)


# Section types whose bytes are an object's contents: PROGBITS, INIT_ARRAY, FINI_ARRAY, NOTE.
_CONTENT_TYPES = (1, 14, 15, 7)


def content_sections(data):
    """{name: bytes} of a little-endian ELF64 object's sections that hold contents (_CONTENT_TYPES)."""
    _, headers, names = elf_splice.read_sections(data)
    out = {}
    for name, h in zip(names, headers):
        if h[1] in _CONTENT_TYPES and h[5]:
            if name in out:
                raise AssertionError("two sections named %s" % name)
            out[name] = data[h[4] : h[4] + h[5]]
    return out


def elf_full(path):
    """An ELF64 relocatable object's sections, symbols (with their section's name) and relocations (by name)."""
    data = read(path)
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    entsize, count, names = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * entsize) for i in range(count)]

    def string(table, offset):
        start = headers[table][4] + offset
        return data[start : data.index(b"\0", start)].decode()

    section_names = [string(names, h[0]) for h in headers]
    sections, symbols, relocations = {}, [], {}
    symtab = None
    for i, h in enumerate(headers):
        kind, offset, size = h[1], h[4], h[5]
        sections[section_names[i]] = b"" if kind == 8 else data[offset : offset + size]  # 8: NOBITS
        if kind == 2:  # SYMTAB: its names are in the section its sh_link names
            symtab = i
            for j in range(size // 24):
                st_name, info, other, shndx, value, sym_size = struct.unpack_from("<IBBHQQ", data, offset + j * 24)
                symbols.append({
                    "name": string(h[6], st_name), "info": info, "other": other, "shndx": shndx, "value": value,
                    "size": sym_size, "section": section_names[shndx] if 0 < shndx < len(headers) else shndx,
                })
    for i, h in enumerate(headers):
        if h[1] == 4:  # RELA: applies to section sh_info, symbols of sh_link
            assert h[6] == symtab
            entries = []
            for j in range(h[5] // 24):
                r_offset, r_info, r_addend = struct.unpack_from("<QQq", data, h[4] + j * 24)
                sym = symbols[r_info >> 32]
                # A section symbol's relocation names the section.
                target = sym["section"] if (sym["info"] & 0xF) == 3 else sym["name"]
                entries.append((r_offset, r_info & 0xFFFFFFFF, target, r_addend))
            relocations[section_names[h[7]]] = sorted(entries)
    return {"sections": sections, "symbols": symbols, "relocations": relocations, "section_names": section_names}


def group_members(elf, content):
    """A COMDAT group section: its flags and its members' names, sorted."""
    names = elf["section_names"]
    flags = struct.unpack_from("<I", content, 0)[0]
    members = [names[i] for i in struct.unpack_from("<%dI" % (len(content) // 4 - 1), content, 4)]
    return flags, sorted(members)


def eh_frame_records(data):
    """An .eh_frame section's CIE and FDE records, each without its trailing DW_CFA_nop padding."""
    records, pos = [], 0
    while pos + 4 <= len(data):
        (length,) = struct.unpack_from("<I", data, pos)
        if length == 0:
            break
        records.append(data[pos + 4 : pos + 4 + length].rstrip(b"\0"))
        pos += 4 + length
    return records


_STDIN_FILE_SYMBOL = ("<stdin>", 4, 0, 65521, 0, 0)


def object_differences(ours_path, ref_path, ours_id, theirs_id, file_names):
    """How the staged object `ours_path` differs from nvcc's `ref_path`: [] when they are equal.

    `ours_id`, `theirs_id`: the two module ids (bytes); `file_names`: {our
    file symbol's name: nvcc's} (the host compile's input file).
    """
    ours, ref = elf_full(ours_path), elf_full(ref_path)
    wrapper = "__nv_fatbin" + ours_id.decode()
    ours_s, theirs_s = ours_id.decode(), theirs_id.decode()
    # Section names hold the module id too (a COMDAT section of an anonymous namespace's constant).
    ours["sections"] = {k.replace(ours_s, theirs_s): v for k, v in ours["sections"].items()}
    ours["section_names"] = [k.replace(ours_s, theirs_s) for k in ours["section_names"]]
    for sym in ours["symbols"]:
        if isinstance(sym["section"], str):
            sym["section"] = sym["section"].replace(ours_s, theirs_s)
    ours["relocations"] = {k.replace(ours_s, theirs_s): v for k, v in ours["relocations"].items()}
    out = []
    if sorted(ours["sections"]) != sorted(ref["sections"]):
        out.append("sections: only staged %s; only nvcc's %s" % (
            sorted(set(ours["sections"]) - set(ref["sections"])), sorted(set(ref["sections"]) - set(ours["sections"]))))
    for name, content in ours["sections"].items():
        # The symbol and string tables and relocations: compared by name below. The fatbinary: by the caller.
        if name in (".symtab", ".strtab", ".shstrtab", ".nv_fatbin", "__nv_relfatbin") or name.startswith(".rela"):
            continue
        theirs = ref["sections"].get(name)
        if theirs is None:
            continue
        if name == ".comment":  # compiler identification strings, once per compiled file
            same = set(content.split(b"\0")) == set(theirs.split(b"\0"))
        elif name == ".eh_frame":  # ld -r rewrites the table's zero terminator into the last record's padding
            same = eh_frame_records(content) == eh_frame_records(theirs)
        elif name == ".group":  # a COMDAT group: its flags, then its members by section index
            same = group_members(ours, content) == group_members(ref, theirs)
        else:
            same = content.replace(ours_id, theirs_id) == theirs
        if not same:
            out.append("section %s differs (%d against nvcc's %d bytes)" % (name, len(content), len(theirs)))

    def named(elf, renames):
        symbols = set()
        for sym in elf["symbols"]:
            if (sym["info"] & 0xF) == 3:  # section symbols: bookkeeping of the object's sections
                continue
            name = renames.get(sym["name"], sym["name"].replace(ours_s, theirs_s))
            # nvcc compiles the wrapper in C++ (the static's name mangled), the fatbinary's object in C.
            name = {"_ZL15__fatDeviceText": "__fatDeviceText"}.get(name, name)
            symbols.add((name, sym["info"], sym["other"], sym["section"], sym["value"], sym["size"]))
        return symbols

    our_symbols = named(ours, file_names)
    wrapper_in_ref = wrapper.replace(ours_s, theirs_s)
    relocatable = "__nv_relfatbin" in ours["sections"]  # -rdc: the wrapper is a global __fatbinwrap_<id> in both
    if not relocatable and (wrapper_in_ref, 0x11, 2, ".nvFatBinSegment", 0, 24) not in our_symbols:
        out.append("no global hidden alias %s of the fatbinary's wrapper" % wrapper)
    our_symbols = {s for s in our_symbols if not s[0].startswith("__nv_fatbin")}
    if _STDIN_FILE_SYMBOL not in our_symbols:
        out.append("no file symbol <stdin> (the fatbinary's object)")
    our_symbols.discard(_STDIN_FILE_SYMBOL)
    their_symbols = named(ref, {})
    if our_symbols != their_symbols:
        out.append("symbols: only staged %s; only nvcc's %s" % (
            sorted(our_symbols - their_symbols)[:5], sorted(their_symbols - our_symbols)[:5]))

    for section, entries in ours["relocations"].items():
        ours_named = sorted(
            (off, kind, ".nvFatBinSegment" if target == wrapper else str(target).replace(ours_s, theirs_s), add)
            for off, kind, target, add in entries
        )
        theirs = sorted((off, kind, ".nvFatBinSegment" if t in ("__fatDeviceText", wrapper_in_ref) else t, add)
                        for off, kind, t, add in ref["relocations"].get(section, []))
        if ours_named != theirs:
            out.append("relocations of %s differ" % section)
    if sorted(ours["relocations"]) != sorted(ref["relocations"]):
        out.append("relocation sections: %s against nvcc's %s" % (sorted(ours["relocations"]), sorted(ref["relocations"])))
    return out
