"""Deterministic module ids for translation units.

cudafe++ normally generates the module id (e.g. `_36197e19_13_vector_add_cu_d91dabe3`)
from the source's absolute path, and every cicc reads it; it ends up in the PTX,
the cubins and, with relocatable device code, in symbols. The rules write it
instead: it depends only on the target's label and the source's workspace-
relative path, so it is the same on every machine and checkout, and unique per
translation unit. It has the shape (and so the length) of nvcc's own.

tools/nvcc_plan/module_id.py is the same function in Python (for
`nvcc_plan --run --module_id_label`); //tools/nvcc_plan:run_plan_test fails if
the two differ.
"""

visibility(["//cuda_rules/...", "//tests/..."])

_HEX = "0123456789abcdef"

def _hex32(value):
    value = value & 0xffffffff
    out = ""
    for _ in range(8):
        out = _HEX[value & 0xf] + out
        value = value >> 4
    return out

def _mangle(name):
    return "".join([c if c.isalnum() else "_" for c in name.elems()])

def module_id(label, src_path):
    """Returns the module id of source `src_path` compiled by target `label`.

    Args:
      label: the Label of the target compiling the source.
      src_path: the source's workspace-relative path (File.short_path).

    Returns:
      A string like `_1a2b3c4d_13_vector_add_cu_5e6f7a8b`.
    """
    basename = src_path.rpartition("/")[2]
    return "_{}_{}_{}_{}".format(
        _hex32(hash(str(label))),
        len(basename),
        _mangle(basename),
        _hex32(hash(src_path)),
    )
