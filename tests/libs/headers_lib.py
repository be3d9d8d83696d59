"""Which headers of a CUDA include directory are public, and what a toolkit lacks.

Shared by gen_include_all (writes the translation unit that includes every
public header) and toolkit_headers_test (the hermetic toolkit against a local
one of the same version).
"""

import posixpath

import re

# A header that includes one of these needs a third-party library's headers,
# which a toolkit does not ship (nor do CUDA's own installers).
# Also one that includes the toolkit's graphics-interop headers, which do.
THIRD_PARTY = re.compile(
    r"^\s*#\s*include\s*[<\"]((GL|EGL|vdpau|CL)/[^>\"]+|cuda_?(gl|egl|vdpau|GL|EGL|VDPAU)[A-Za-z_]*\.h)[>\"]", re.M)
INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"]([^>\"]+)[>\"]", re.M)
GUARD = re.compile(r"^\s*#\s*(pragma\s+once|ifndef|if\s+!\s*defined)", re.M)
# NVIDIA's mark on headers that must not be included directly.
INTERNAL = "is an internal header file and must not be used directly"
# Headers that cannot share a translation unit with another public one.
EXCLUSIVE = {
    "cublas.h": "cuBLAS's legacy API: an #error next to cublas_v2.h, which is included",
    "cudaVDPAU.h": "needs vdpau/vdpau.h's types, included before it",
    "fatbinary_section.h": "the compiler's own: the host code nvcc generates declares its types",
    "generated_cudart_removed_meta.h": "includes cudart_removed.h, which CUDA 13 no longer ships",
}

# Directories whose top-level files are public entry points (their
# subdirectories are implementation details); C++-only ones are marked.
PUBLIC_DIRS = ("cooperative_groups", "nvtx3", "cccl/cuda/std")
# One umbrella header per CCCL library stands for its hundreds of headers.
UMBRELLAS = ("cccl/cub/cub.cuh", "cccl/thrust/version.h", "cccl/thrust/device_vector.h", "cccl/cuda/atomic")


def relative(path, include_dir):
    """path relative to the include directory, or None when it is not under it."""
    marker = "/" + include_dir.strip("/") + "/"
    padded = "/" + path
    i = padded.find(marker)
    return padded[i + len(marker):] if i >= 0 else None


def public_headers(paths, read=None):
    """The public headers among include-relative paths, sorted, with why others were left out.

    Args:
      paths: include-relative paths.
      read: a function returning a header's text from its include-relative path, or None
        (then only names decide).

    Returns:
      (list of includable headers, {header: reason} left out).
    """
    out, left = [], {}
    for p in sorted(set(paths)):
        directory = posixpath.dirname(p)
        if directory == "":
            candidate = p.endswith(".h")
        else:
            candidate = p in UMBRELLAS or (directory in PUBLIC_DIRS and (p.endswith(".h") or directory == "cccl/cuda/std"))
        if not candidate:
            continue
        if p in EXCLUSIVE:
            left[p] = EXCLUSIVE[p]
            continue
        text = read(p) if read else ""
        third_party = THIRD_PARTY.search(text)
        if third_party:
            left[p] = "needs " + third_party.group(1)
        elif INTERNAL in text:
            left[p] = "internal: NVIDIA's #warning says not to include it directly"
        else:
            out.append(p)
    if read:
        # A header another public one includes is compiled through it: its
        # parts (curand_kernel.h's curand_*.h) need not stand alone, and one
        # without an include guard would be declared twice.
        texts = {p: read(p) for p in out}
        includes = {p: set(INCLUDE.findall(t)) for p, t in texts.items()}

        def includes_(q, p):
            return p in includes[q] or posixpath.basename(p) in includes[q]

        for p in list(out):
            by = sorted(q for q in out if q != p and includes_(q, p) and not includes_(p, q))
            if by:
                left[p] = "reached through %s" % by[0] if GUARD.search(texts[p]) else "no include guard; reached through %s" % by[0]
        out = [p for p in out if p not in left]
    return out, left


def include_name(header):
    """What an #include names: CCCL's headers are reached through include/cccl."""
    return header[len("cccl/"):] if header.startswith("cccl/") else header


def missing_from_hermetic(local, hermetic, library_prefixes):
    """Headers of a local toolkit's include directory that the hermetic toolkit lacks.

    Args:
      local: include-relative paths of the local toolkit.
      hermetic: include-relative paths of the hermetic toolkit.
      library_prefixes: {component: [name prefixes]} of the libraries with repositories of
        their own (their headers come with @cuda//:<library>, not the toolkit).

    Returns:
      (sorted list of headers missing from both, {header: component} provided by a library).
    """
    hermetic = set(hermetic)
    missing, by_library = [], {}
    for p in sorted(set(local) - hermetic):
        top = p.split("/")[0]
        owner = [c for c, prefixes in sorted(library_prefixes.items()) if any(top.startswith(x) for x in prefixes)]
        if owner:
            by_library[p] = owner[0]
        else:
            missing.append(p)
    return missing, by_library
