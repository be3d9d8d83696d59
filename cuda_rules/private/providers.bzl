"""Providers of rules_cuda_stages (private definitions; public in //cuda_rules:providers.bzl)."""

visibility(["//cuda_rules/...", "//tests/..."])

CudaInfo = provider(
    doc = "Device code a cuda_library produced, per source and arch.",
    fields = {
        "objects": "depset of File: the objects of the target's CUDA sources (one per source, each embedding a fatbinary), " +
                   "and of the cuda_objects it archives.",
        "ptx": "depset of File: PTX per virtual arch (compute_XX/<stem>.ptx).",
        "cubins": "depset of File: cubins per real arch (compute_XX/sm_YY/<stem>.cubin).",
        "fatbins": "depset of File: the fatbinary of each source (<stem>.fatbin).",
        "archs": "struct from archs.bzl: the arch set this target was compiled for.",
        "pinned_arch_list": "string: the __CUDA_ARCH_LIST__ every stage was given, the shipped set's (e.g. \"750,800,860,900\"), " +
                            "or \"\" when it is nvcc's own (the compiled archs': archs outside the shipped set, or staged = False).",
        "rdc": "bool: the target's device code is relocatable (rdc = True) and must be device-linked.",
        "images": "list of struct(src, fatbin, ptx, cubins): the device code of each of this target's own CUDA " +
                  "sources compiled in stages (none for staged = False): src the source File, fatbin its " +
                  "fatbinary, ptx {\"compute_NN\": File} (LTO IR for lto_NN), cubins {\"sm_NN\": File}; " +
                  "what cuda_device_image picks from.",
        "device_link_inputs": "list of struct(arch, code, image, script, object, label, src, marker, clang_main_file): this target's own " +
                              "relocatable device code (and its cuda_objects') per source and arch, what a device link " +
                              "reads. arch: sm_NN; code: elf (a relocatable cubin), nvvm (LTO IR) or object (the whole " +
                              "host object, staged = False); script: the source's plan/device_object.sh, which wraps an " +
                              "image as nvcc's objects carry it; object: the source's object; marker: the symbol every " +
                              "device link of the source defines (\"\" for none); clang_main_file: for a source clang " +
                              "compiled, its path as clang spells it, which names its module (\"\" for nvcc's).",
    },
)

CudaObjectsInfo = provider(
    doc = "The objects of a cuda_objects target (and of the cuda_objects below it), for the cuda_library that archives them.",
    fields = {
        "whole": "depset of File: objects of whole-program device code, for a cuda_library without rdc; None when the " +
                 "target (or one below) compiles LTO archs, which need rdc.",
        "label": "Label: the cuda_objects target, for messages.",
        "relocatable": "depset of File: objects of relocatable device code, for a cuda_library(rdc = True).",
        "device_link_inputs": "depset of struct: the relocatable code per source and arch, as CudaInfo.device_link_inputs.",
    },
)

CudaToolchainInfo = provider(
    doc = "A CUDA toolkit, as files and labels (never absolute paths).",
    fields = {
        "version": "string: the toolkit version, e.g. \"13.0\".",
        "supported_archs": "list of string: the archs this toolkit's nvcc builds (the values `nvcc --help` allows for " +
                           "--gpu-code: compute_NN, sm_NN, lto_NN, with a/f variants), read by the toolkit repository; " +
                           "empty when it could not run that nvcc (a toolkit for another platform): then unchecked.",
        "nvcc": "File: bin/nvcc.",
        "nvcc_files": "depset of File: what `nvcc --dryrun` reads (nvcc.profile, a header of each include directory).",
        "cudafe": "File: bin/cudafe++.",
        "cicc": "File: nvvm/bin/cicc.",
        "cicc_files": "depset of File: cicc and libdevice.",
        "ptxas": "File: bin/ptxas.",
        "fatbinary": "File: bin/fatbinary.",
        "nvlink": "File or None: bin/nvlink.",
        "device_link_files": "depset of File: what device linking reads (nvlink, fatbinary, crt/link.stub, libcudadevrt.a).",
        "fatbin_header": "depset of File: include/fatbinary_section.h, what CudaEmbedFatbin's compile of fatbinary's C output includes.",
        "host_compile_headers": "depset of File: what CudaHostCompile reads from the toolkit (crt/host_runtime.h and the headers it includes).",
        "lto_files": "depset of File: what nvlink -dlto loads (libNVVM, libdevice).",
        "cudadevrt": "CcInfo or None: the device runtime (libcudadevrt.a).",
        "headers": "depset of File: the toolkit's include tree.",
        "compiler_files": "depset of File: everything nvcc itself runs or reads (unstaged mode).",
        "toolkit_root": "string: execroot-relative path of the toolkit root (external/<repo>).",
        "runtime": "CcInfo: the CUDA runtime (static) and the toolkit headers.",
        "host_compiler_id": "struct(file, compiler): the machine's C++ compiler's id (path, version, predefined macros) and that path; an input of the host-compiler stages when the C++ toolchain runs that path (compile/target.bzl).",
    },
)

CudaArchConfigInfo = provider(
    doc = "The build's arch configuration, resolved once per configuration by //cuda_rules:arch_config.",
    fields = {
        "archs": "struct from archs.bzl: what targets without an `archs` attribute compile.",
        "archs_origin": "string: where `archs` comes from, for messages (a flag, the shipped set, the detected GPUs).",
        "shipped": "struct from archs.bzl: the shipped set.",
        "shipped_spec": "string: the shipped set as written.",
        "shipped_origin": "string: where the shipped set comes from, for messages.",
        "pinned_arch_list": "string: the __CUDA_ARCH_LIST__ staged compiles of `archs` get (the shipped set's), or \"\" (nvcc's own).",
        "notice": "string: what the build is told once (printed by arch_config), or \"\".",
    },
)
