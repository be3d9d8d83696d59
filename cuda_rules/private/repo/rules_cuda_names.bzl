"""rules_cuda's `@cuda` / `@local_cuda` target names beyond the components' own, and what each is here.

bazel-contrib/rules_cuda's toolkit repository (0.2.x `@local_cuda`, 0.3 `@cuda`,
local or assembled from NVIDIA's redistributables) has more names than a
component's library: the tools, file groups per component, each library's
`.so` / `.lib` imports and static variants, and the `valid_toolchain_found`
setting projects select on. Each name resolves here with rules_cuda's meaning:

- RULES_CUDA_ALIASES: a name for a target the hub already has (`cudart_so` is
  the shared runtime, `cudadevrt_a` the device runtime, `crt` the headers);
  the per-target `aliases` of components.bzl add the libraries' `_so` names.
- TOOLKIT_COMPAT_TARGETS: targets every toolkit repository defines
  (BUILD.toolkit.tpl and `toolkit_compat_targets` below): the tools, the
  file groups, `valid_toolchain_found`.
- `<component>_headers`, `<component>_all_files`, `<component>_license` for
  every component of components.bzl, defined by its repository
  (library_repository.bzl's component_targets).
- RULES_CUDA_WINDOWS: rules_cuda's Windows import libraries (`cublas_lib`,
  ...), incompatible on Linux there and here.

docs/migrating.md, "`@cuda` labels", lists them for users.
"""

visibility(["//cuda_rules/...", "//tests/..."])

# rules_cuda's per-component groups: every component of components.bzl gets these three.
COMPONENT_GROUPS = {
    "_all_files": "every file of the component (headers and libraries)",
    "_headers": "the component's headers only (no library linked)",
    "_license": "the component's license files",
}

# rules_cuda's names for targets the toolkit repository has under another name.
RULES_CUDA_ALIASES = {
    "cccl_headers": "cccl",
    "crt": "cuda_headers",
    "crt_headers": "cuda_headers",
    "crt_license": "cuda_license",
    "cuda_so": "cuda",
    "cuda_stub": "cuda",
    "cudadevrt_a": "cudadevrt",
    "cudart_headers": "cuda_headers",
    "cudart_license": "cuda_license",
    "cudart_so": "cuda_runtime_shared",
    "cccl_license": "cuda_license",
    "culibos_headers": "cuda_headers",
    "culibos_license": "cuda_license",
    "nvcc_all_files": "compiler_deps",
    "nvcc_headers": "cuda_headers",
    "nvcc_license": "cuda_license",
    "nvvm_license": "cuda_license",
    # rules_cuda 0.2's names of NVTX 2's library.
    "nvtx_so": "libnvToolsExt_so",
    # Names public projects use for these (rules_cuda 0.3 with its redist
    # toolkit patched, and other CUDA repositories): the runtime, NVRTC's
    # builtins (in @cuda//:nvrtc here, with NVRTC).
    "cudart": "cuda_runtime",
    "nvrtc_builtins": "nvrtc",
}

# Targets every toolkit repository defines for rules_cuda's names (what each is).
TOOLKIT_COMPAT_TARGETS = {
    "bin2c": "the toolkit's bin/bin2c",
    "cccl_all_files": "CCCL's headers",
    "cicc": "the toolkit's nvvm/bin/cicc",
    "compiler_deps": "every file nvcc runs or reads (its tools, NVVM, libdevice, the headers)",
    "compiler_root": "bin/nvcc, whose directory's parent is the toolkit root (rules_cuda: the root)",
    "crt_all_files": "the headers of include/crt",
    "cuda_all_files": "every file of the toolkit",
    "cuda_license": "the toolkit's license files",
    "cudart_all_files": "the runtime's libraries and the toolkit's headers",
    "culibos_a": "the helper library NVIDIA's static libraries link",
    "culibos_all_files": "libculibos.a",
    "fatbinary": "the toolkit's bin/fatbinary",
    "libdevice": "nvvm/libdevice (libdevice.10.bc)",
    "libdevice.10.bc": "nvvm/libdevice/libdevice.10.bc",
    "link.stub": "bin/crt/link.stub (the device link's registration code)",
    "nvcc": "the toolkit's bin/nvcc",
    "nvlink": "the toolkit's bin/nvlink",
    "nvvm_all_files": "every file of nvvm/",
    "nvvm_headers": "libNVVM's headers (nvvm/include)",
    "ptxas": "the toolkit's bin/ptxas",
    "valid_toolchain_found": "a bool_setting (for config_setting flag_values): True when the build's toolkit is there",
}

# The files behind TOOLKIT_COMPAT_TARGETS' single-file names, relative to a toolkit's root.
_TOOL_FILES = {
    "bin2c": "bin/bin2c",
    "cicc": "nvvm/bin/cicc",
    "fatbinary": "bin/fatbinary",
    "libdevice.10.bc": "nvvm/libdevice/libdevice.10.bc",
    "link.stub": "bin/crt/link.stub",
    "nvcc": "bin/nvcc",
    "nvlink": "bin/nvlink",
    "ptxas": "bin/ptxas",
}

# rules_cuda's Windows import libraries (cc_import of a .lib with
# target_compatible_with Windows): incompatible on Linux, so a target that
# depends on one is skipped by `bazel build //...`, as with rules_cuda.
RULES_CUDA_WINDOWS = [
    "cublasLt_lib",
    "cublas_lib",
    "cuda_lib",
    "cudadevrt_lib",
    "cudart_lib",
    "cufft_lib",
    "cufftw_lib",
    "cupti_headers_win",
    "cupti_lib",
    "curand_lib",
    "cusolver_lib",
    "cusparse_lib",
    "libnvToolsExt_lib",
    "nppc_lib",
    "nppial_lib",
    "nppicc_lib",
    "nppidei_lib",
    "nppif_lib",
    "nppig_lib",
    "nppim_lib",
    "nppist_lib",
    "nppisu_lib",
    "nppitc_lib",
    "npps_lib",
    "nvJitLink_lib",
    "nvjpeg_lib",
    "nvml_lib",
    "nvptxcompiler_lib",
    "nvrtc_lib",
    "nvtx_lib",
]

def _missing(name, path, where):
    return """
cuda_missing_component(
    name = "{name}",
    message = {message},
)
""".format(name = name, message = repr(("rules_cuda_stages: @cuda//:{name} ({what}) is not available in {where}: " +
                                        "it has no {path}. Fix: use a toolkit that has it, e.g. the local toolkit " +
                                        "(--@rules_cuda_stages//cuda_rules:toolkit=local).").format(
        name = name,
        what = TOOLKIT_COMPAT_TARGETS[name],
        where = where,
        path = path,
    )))

def toolkit_compat_targets(rctx, where, lib_dirs):
    """BUILD text of TOOLKIT_COMPAT_TARGETS' targets that depend on which files this toolkit has.

    The others (file groups over globs, valid_toolchain_found) are in BUILD.toolkit.tpl.

    Args:
      rctx: the repository_ctx of a toolkit repository.
      where: the toolkit's origin, for messages.
      lib_dirs: where its libraries are, relative to the repository root.

    Returns:
      BUILD text.
    """
    out = ["\n# rules_cuda's names of the toolkit's tools (rules_cuda_names.bzl).\n"]
    for name in sorted(_TOOL_FILES.keys()):
        path = _TOOL_FILES[name]
        if rctx.path(path).exists:
            out.append("alias(\n    name = \"{}\",\n    actual = \"{}\",\n)\n".format(name, path))
        else:
            out.append(_missing(name, path, where))
    if rctx.path("nvvm/include/nvvm.h").exists:
        out.append("""
cc_library(
    name = "nvvm_headers",
    hdrs = glob(["nvvm/include/**"]),
    includes = ["nvvm/include"],
)
""")
    else:
        out.append(_missing("nvvm_headers", "nvvm/include/nvvm.h", where))
    culibos = [d + "/libculibos.a" for d in lib_dirs if rctx.path(d + "/libculibos.a").exists]
    if culibos:
        out.append("""
cc_import(
    name = "culibos_a",
    static_library = "{lib}",
)

filegroup(
    name = "culibos_all_files",
    srcs = ["{lib}"],
)
""".format(lib = culibos[0]))
    else:
        out.append(_missing("culibos_a", "libculibos.a", where))
        out.append("\nfilegroup(\n    name = \"culibos_all_files\",\n    srcs = [],\n)\n")
    return "".join(out)

def component_group_names(component):
    """rules_cuda's per-component group names for a component key of components.bzl."""
    return [component + suffix for suffix in sorted(COMPONENT_GROUPS.keys())]
