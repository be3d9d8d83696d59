"""Which headers of a CUDA include directory are public, and what a toolkit lacks.

Shared by gen_include_all (writes the translation unit that includes every
public header) and toolkit_headers_test (the hermetic toolkit against a local
one of the same version).
"""

import posixpath

# Public headers that need a third-party library's headers, which a toolkit
# does not ship (and CUDA's own installers do not either).
NEEDS_THIRD_PARTY = {
    "cudaEGL.h": "EGL/egl.h",
    "cudaEGLTypedefs.h": "EGL/egl.h",
    "cuda_egl_interop.h": "EGL/egl.h",
    "cudaGL.h": "GL/gl.h",
    "cudaGLTypedefs.h": "GL/gl.h",
    "cuda_gl_interop.h": "GL/gl.h",
    "cudaVDPAU.h": "vdpau/vdpau.h",
    "cudaVDPAUTypedefs.h": "vdpau/vdpau.h",
    "cuda_vdpau_interop.h": "vdpau/vdpau.h",
    "nvtx3/nvToolsExtOpenCL.h": "CL/cl.h",
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
    i = padded.rfind(marker)
    return padded[i + len(marker):] if i >= 0 else None


def public_headers(paths):
    """The public headers among include-relative paths, sorted, with why others were left out.

    Returns:
      (list of includable headers, {header: reason} left out).
    """
    out, left = [], {}
    for p in sorted(set(paths)):
        directory = posixpath.dirname(p)
        if p in NEEDS_THIRD_PARTY:
            left[p] = "needs " + NEEDS_THIRD_PARTY[p]
            continue
        if directory == "":
            if p.endswith(".h"):
                out.append(p)
            continue
        if p in UMBRELLAS:
            out.append(p)
        elif directory in PUBLIC_DIRS and (p.endswith(".h") or directory == "cccl/cuda/std"):
            out.append(p)
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
