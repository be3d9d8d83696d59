"""clang as the CUDA compiler (--@rules_cuda_stages//cuda_rules:compiler=clang): the checks and the driver call.

The C++ toolchain's compiler is the clang that compiles CUDA (as in
rules_cuda: --repo_env=CC=clang). CudaPlan asks it for its plan (`clang
-###`, tools/nvcc_plan/clang_scripts.py) with the arguments below, and the
stages of stages.bzl's CLANG_TABLE replay its jobs.
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//cuda_rules/private:compile/host_flags.bzl", "classify_host_flags")
load("//cuda_rules/private:compile/nvcc_args.bzl", "CANONICAL_EXECROOT", "join_path")
load("//cuda_rules/private:device_debug.bzl", "device_debug_requested")
load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:toolchain.bzl", "host_clang_major", "toolkit_version")

visibility(["//cuda_rules/..."])

# The clang x CUDA pairs these rules compile CUDA with, tested (docs/cuda_library.md, "clang as the CUDA compiler"):
# clang major -> toolkit versions. clang 21 reads CUDA 12.9 and newer as 12.8 and
# its fatbinary command and CUDA wrapper headers predate CUDA 13 (no
# texture_fetch_functions.h, include/cccl); clang 22 knows CUDA 13 (it reads
# 13.0 as 12.9, its newest, and writes fatbinary's --image3= form itself).
CLANG_CUDA_PAIRS = {
    21: ["12.4"],
    22: ["13.0"],
}

# Where tools/bazelw installs each clang of the pairs (its addons; docs/bazelw.md, "Addons").
_ADDONS = {
    21: "clang addon: `tools/bazelw --bazelw-addon clang`, /opt/rules_cuda_stages/clang/bin/clang",
    22: "clang22 addon: `tools/bazelw --bazelw-addon clang22`, /opt/rules_cuda_stages/clang22/bin/clang",
}

# From this CUDA version on, clang's CUDA wrapper headers get what they include
# beyond the toolkit's include/ from //cuda_rules:clang_wrapper_headers: the
# wrapper always includes curand_mtgp32_kernel.h, which NVIDIA's CUDA 13 wheels
# ship in nvidia-curand (@cuda//:curand_headers), not in the toolkit.
CLANG_WRAPPER_HEADERS_FROM = (13, 0)

_COMPILER_FLAG = "--@rules_cuda_stages//cuda_rules:compiler"

# clang options that choose relocatable device code or its offload driver: rdc = True does.
_RDC_FLAGS = ["-fgpu-rdc", "-fno-gpu-rdc", "-fcuda-rdc", "-fno-cuda-rdc", "--offload-new-driver", "--no-offload-new-driver"]

def _pairs_text():
    return ", ".join(["clang {} with CUDA {}".format(clang, " or ".join(cuda)) for clang, cuda in sorted(CLANG_CUDA_PAIRS.items())])

def _clang_for(version):
    """The clang major of the pair with CUDA `version`, else the oldest pair's."""
    for clang, versions in sorted(CLANG_CUDA_PAIRS.items()):
        if version in versions:
            return clang
    return sorted(CLANG_CUDA_PAIRS)[0]

def clang_wrapper_headers(ctx, cuda):
    """What clang's CUDA wrapper headers include from outside the toolkit's include/, as CcInfo (a list).

    Args:
      ctx: the rule context (with compile_attrs' _clang_wrapper_headers).
      cuda: CudaToolchainInfo.

    Returns:
      list of CcInfo: for CUDA >= CLANG_WRAPPER_HEADERS_FROM, cuRAND's headers; else none.
    """
    version = toolkit_version(cuda.version)
    if version == None or version < CLANG_WRAPPER_HEADERS_FROM:
        return []
    return [ctx.attr._clang_wrapper_headers[CcInfo]]

# From this clang on, the driver defines __CUDA_ARCH_LIST__ (every --cuda-gpu-arch), as nvcc does.
_ARCH_LIST_FROM = 22

def clang_defines_arch_list(cc_toolchain):
    """Whether the C++ toolchain's clang defines __CUDA_ARCH_LIST__ for CUDA (clang 22 and newer).

    Args:
      cc_toolchain: the C++ toolchain.

    Returns:
      bool.
    """
    major = clang_major(cc_toolchain)
    return major != None and major >= _ARCH_LIST_FROM

def clang_major(cc_toolchain):
    """The major version of the C++ toolchain's clang (toolchain.bzl's host_clang_major), or None.

    Args:
      cc_toolchain: the C++ toolchain.

    Returns:
      int or None.
    """
    return host_clang_major(cc_toolchain) or None

def check_clang(ctx, cc_toolchain, cuda, archs, staged):
    """Fails analysis, naming what to do, for what these rules do not compile with clang.

    Args:
      ctx: the rule context.
      cc_toolchain: the C++ toolchain (its compiler is the clang).
      cuda: CudaToolchainInfo.
      archs: struct from archs.parse_archs.
      staged: whether the target compiles in stages.
    """
    label = display_label(ctx.label)
    if cc_toolchain.compiler != "clang":
        fail(("{}: {}=clang compiles CUDA with the C++ toolchain's compiler, and that is {} ({}), not clang. " +
              "Fix: point the C++ toolchain at clang (--repo_env=CC=clang, or tools/bazelw's clang addon: " +
              "--repo_env=CC=/opt/rules_cuda_stages/clang/bin/clang), or compile with nvcc.").format(
            label,
            _COMPILER_FLAG,
            cc_toolchain.compiler,
            cc_toolchain.compiler_executable,
        ))
    major = clang_major(cc_toolchain)
    if major == None or cuda.version not in CLANG_CUDA_PAIRS.get(major, []):
        # The fix keeps the clang where it is in a pair, else the toolkit where it is.
        pair_major = major if major in CLANG_CUDA_PAIRS else _clang_for(cuda.version)
        fail(("{}: clang {} with CUDA {} is not a pair these rules compile CUDA with (supported: {}). Fix: " +
              "choose a supported toolkit (--@rules_cuda_stages//cuda_rules:toolkit={}) and clang " +
              "{} (tools/bazelw's {}), or compile with nvcc ({}=nvcc).").format(
            label,
            major if major != None else "of unknown version ({})".format(cc_toolchain.compiler_executable),
            cuda.version,
            _pairs_text(),
            CLANG_CUDA_PAIRS[pair_major][0],
            pair_major,
            _ADDONS[pair_major],
            _COMPILER_FLAG,
        ))
    if not staged:
        fail("{}: clang compiles CUDA in stages only (staged = False is nvcc's single action). Fix: remove staged = False, or compile with nvcc.".format(label))
    for v in archs.virtuals:
        gpu = "sm_" + v.virtual[len("compute_"):]
        others = [r for r in v.reals if r != gpu]
        if v.lto or others:
            fail(("{}: clang compiles each GPU arch from the source for itself, so {} cannot be built by clang ({}). " +
                  "Fix: name archs as sm_NN (a cubin) and compute_NN (PTX), or compile with nvcc.").format(
                label,
                "lto_" + v.virtual[len("compute_"):] if v.lto else "{} as {}".format(v.virtual, ", ".join(others)),
                "device LTO IR is nvcc's" if v.lto else "clang's PTX for {} is assembled for {} only".format(gpu, gpu),
            ))

def clang_options(ctx, toolchain_flags, attrs):
    """The target's clang options: the C++ toolchain's flags, the build's and the target's.

    `copts` and --@rules_cuda_stages//cuda_rules:copts are clang driver options
    (both sides: -Xarch_device / -Xarch_host select one); host_copts reach the
    host compile only (-Xarch_host), ptxasopts ptxas (-Xcuda-ptxas).

    Args:
      ctx: the rule context.
      toolchain_flags: list of string, host_flags.toolchain_compile_flags.
      attrs: struct from make_variables.expanded_attributes.

    Returns:
      struct like nvcc_args.nvcc_options; toolchain_flags is struct(clang: the
      list, for clang's driver; host: what nvcc's host compile of a device
      link's stub gets, as for nvcc's targets).
    """
    if "cuda_device_debug" in ctx.features or device_debug_requested(ctx.label, ctx.attr._device_debug[BuildSettingInfo].value):
        fail(("{}: device debugging (--@rules_cuda_stages//cuda_rules:device_debug, the cuda_device_debug feature) is nvcc's -G. " +
              "Fix: with clang, put clang's `-g --cuda-noopt-device-debug` in copts.").format(display_label(ctx.label)))
    if ctx.file.optf:
        fail("{}: optf is an nvcc options file; clang takes no such file. Fix: put the options in copts.".format(display_label(ctx.label)))
    for flag in ctx.attr._copts[BuildSettingInfo].value + attrs.copts + attrs.host_copts:
        if flag in _RDC_FLAGS:
            fail(("{}: {} in the options: whether device code is relocatable is the target's rdc attribute " +
                  "(with clang: -fgpu-rdc and the old offload driver, device-linked by nvlink). Fix: set rdc = True " +
                  "(or leave it False) instead of passing {}.").format(display_label(ctx.label), flag, flag))
    return struct(
        copts = ctx.attr._copts[BuildSettingInfo].value + attrs.copts,
        host_copts = ctx.attr._host_copts[BuildSettingInfo].value + attrs.host_copts,
        ptxasopts = attrs.ptxasopts,
        local_defines = attrs.local_defines,
        optf = None,
        # nvcc's --split-compile; clang's driver has no such option.
        split_compile = 1,
        toolchain_flags = struct(
            clang = toolchain_flags,
            host = classify_host_flags(toolchain_flags, nvcc_sets_std = False).host,
        ),
    )

def clang_common_args(ctx, target, rdc):
    """clang's driver arguments for every .cu file of a target (not the source and output).

    Args:
      ctx: the rule context.
      target: the target context (target.bzl).
      rdc: whether the device code is relocatable: clang's -fgpu-rdc, with the
        old offload driver, whose objects nvlink device-links (device_link.bzl).

    Returns:
      Args.
    """
    label = ctx.label
    cctx = target.comp.cctx
    options = target.options
    args = ctx.actions.args()
    args.add_all(["-x", "cuda"])
    args.add("--cuda-path=" + target.cuda.toolkit_root)
    for v in target.archs.virtuals:
        args.add("--cuda-gpu-arch=sm_" + v.virtual[len("compute_"):])

    # PTX exactly where the archs say (clang's default embeds none).
    args.add("--no-cuda-include-ptx=all")
    args.add_all(["--cuda-include-ptx=sm_" + v.virtual[len("compute_"):] for v in target.archs.virtuals if v.ptx])
    if rdc:
        # clang's default for -fgpu-rdc (21 and 22), the new offload driver, links with
        # clang-linker-wrapper; the old one writes nvcc's kind of relocatable object.
        args.add_all(["-fgpu-rdc", "--no-offload-new-driver"])

    # The working directory every stage records (debug info), the same in every sandbox and checkout.
    args.add("-ffile-compilation-dir=" + CANONICAL_EXECROOT)

    # The pair was checked at analysis (CLANG_CUDA_PAIRS); clang 21 warns for every CUDA newer than 12.3,
    # clang 22 for every one newer than 12.9.
    args.add("-Wno-unknown-cuda-version")

    # The C++ toolchain's flags first (the build's and the target's options below win).
    args.add_all(options.toolchain_flags.clang)
    args.add("-fPIC")
    args.add_all(options.copts)
    args.add_all(options.host_copts, before_each = "-Xarch_host")
    args.add_all(options.ptxasopts, before_each = "-Xcuda-ptxas")
    args.add_all(cctx.includes, before_each = "-I", map_each = _execroot_relative)
    args.add_all(cctx.quote_includes, before_each = "-iquote", map_each = _execroot_relative)
    root = label.workspace_root or "."
    args.add_all([root, join_path(ctx.bin_dir.path, label.workspace_root)], before_each = "-iquote", map_each = _execroot_relative)
    args.add_all(cctx.system_includes, before_each = "-isystem", map_each = _execroot_relative)
    args.add_all(cctx.defines, format_each = "-D%s")
    args.add_all(options.local_defines, format_each = "-D%s")
    if target.clang_arch_list:
        # clang 22's driver defines __CUDA_ARCH_LIST__ from the archs compiled; a
        # subset of the shipped set gets the shipped set's instead, as nvcc's
        # stages do, so its compiles are a build of the shipped set's (one
        # cache entry). The driver puts these after its own definition, which
        # the stage scripts drop as dead (clang_scripts.py).
        args.add("-U__CUDA_ARCH_LIST__")
        args.add("-D__CUDA_ARCH_LIST__=" + target.clang_arch_list)
    return args

def clang_source_args(actions, src, obj):
    """The source and object of one clang compile.

    Args:
      actions: ctx.actions.
      src: File, the source.
      obj: File, its object.

    Returns:
      Args.
    """
    args = actions.args()

    # -x cuda (clang_common_args) makes any source CUDA, as nvcc's -x cu does.
    args.add("-c", src)
    args.add("-o", obj)
    return args

def _execroot_relative(path):
    return path or "."
