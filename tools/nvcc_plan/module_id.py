"""The rules' deterministic module ids: computed here only (CudaPlan writes them; the runner uses them too).

`module_id(label, src_path)` returns exactly the id the rules write for source
`src_path` (its workspace-relative path, File.short_path) compiled by target
`label`, so a compile outside Bazel (`nvcc_plan --run --module_id_label=...`)
embeds the same id as the staged build.

Starlark's `hash()` of a string is Java's String.hashCode over the string's
characters; Bazel keeps strings as their UTF-8 bytes, one character per byte,
so the hash and `len` run over UTF-8 bytes here too. Starlark's `isalnum` is
[a-zA-Z] or a Java digit (Unicode Nd, none of which is a single byte besides
0-9), so `_mangle` keeps ASCII letters and digits and turns every other byte
into `_`.
"""

_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def java_string_hash(data):
    """Java's String.hashCode of `data` (bytes, one char per byte), as an unsigned 32-bit int."""
    value = 0
    for byte in data:
        value = (value * 31 + byte) & 0xFFFFFFFF
    return value


def _mangle(data):
    return bytes(b if b in _ALNUM else ord("_") for b in data)


def canonical_label(label):
    """The string Starlark's str() gives for a label written in a BUILD file of the main module.

    `//pkg:name` and `//pkg` become `@@//pkg:name`; labels already written with
    `@@` are kept. An apparent repository name (`@repo//...`) cannot be mapped
    to its canonical name without Bazel, so it is refused.
    """
    if label.startswith("@@"):
        repo, sep, rest = label.partition("//")
        if not sep:
            raise ValueError("not a label: %r" % label)
        return repo + "//" + _with_name(rest)
    if label.startswith("@"):
        raise ValueError(
            "label %r names a repository by its apparent name; write its canonical name "
            "(as `bazel query --output=label` or str(ctx.label) prints it), e.g. @@repo~//pkg:name" % label
        )
    if not label.startswith("//"):
        raise ValueError("label %r must start with // (or @@repo//)" % label)
    return "@@//" + _with_name(label[2:])


def _with_name(package_and_name):
    if ":" in package_and_name:
        return package_and_name
    return package_and_name + ":" + package_and_name.rpartition("/")[2]


def short_path(execroot_path):
    """File.short_path of a file given by its execroot-relative path.

    `bazel-out/<cfg>/bin/x` -> `x`; `external/<repo>/x` -> `../<repo>/x`.
    """
    parts = execroot_path.split("/")
    if len(parts) > 3 and parts[0] == "bazel-out" and parts[2] in ("bin", "genfiles"):
        parts = parts[3:]
    if len(parts) > 2 and parts[0] == "external":
        parts = [".."] + parts[1:]
    return "/".join(parts)


def module_id(label, src_path):
    """Returns the module id of source `src_path` compiled by target `label`.

    Args:
      label: str(Label) of the target, e.g. `@@//pkg:kernels` (see canonical_label).
      src_path: the source's workspace-relative path (File.short_path).

    Returns:
      A str like `_1a2b3c4d_13_vector_add_cu_5e6f7a8b` (always ASCII).
    """
    label_bytes = label.encode("utf-8")
    path_bytes = src_path.encode("utf-8")
    basename = path_bytes.rpartition(b"/")[2]
    out = b"_%08x_%d_%s_%08x" % (
        java_string_hash(label_bytes),
        len(basename),
        _mangle(basename),
        java_string_hash(path_bytes),
    )
    return out.decode("ascii")
