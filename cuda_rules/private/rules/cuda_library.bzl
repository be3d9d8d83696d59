"""cuda_library: CUDA and C++ sources compiled into a library, one action per nvcc stage."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@rules_cc//cc:find_cc_toolchain.bzl", "find_cc_toolchain", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//cuda_rules/private:archs.bzl", "device_link_archs", "parse_archs", "pinned_arch_list")
load("//cuda_rules/private:compile/nvcc_args.bzl", "join_path", "nvcc_common_args")
load("//cuda_rules/private:compile/staged.bzl", "staged_compile")
load("//cuda_rules/private:compile/unstaged.bzl", "unstaged_compile")
load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:nvcc_options.bzl", "check_nvcc_options")
load("//cuda_rules/private:providers.bzl", "CudaArchConfigInfo", "CudaInfo")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAINS", "find_cuda_toolchain")

visibility(["//cuda_rules/...", "//tests/..."])

_CUDA_EXTENSIONS = ["cu"]
_CC_EXTENSIONS = ["cc", "cpp", "cxx", "c++", "C", "c"]
_HDR_EXTENSIONS = ["h", "hh", "hpp", "hxx", "inc", "inl", "cuh"]

def _cuda_library_impl(ctx):
    cuda = find_cuda_toolchain(ctx)
    cc_toolchain = find_cc_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )

    # The build's archs and their __CUDA_ARCH_LIST__ (//cuda_rules:arch_config),
    # or this target's own `archs` under the same rule: every virtual arch in
    # the shipped set -> the shipped set's list, else nvcc's own.
    config = ctx.attr._arch_config[CudaArchConfigInfo]
    if ctx.attr.archs:
        if ctx.attr.archs in ("shipped", "native"):
            fail(("{}: archs = \"{}\" is a value of --@rules_cuda_stages//cuda_rules:archs, not of the `archs` attribute. " +
                  "Fix: leave `archs` unset to compile what the build chooses, or name archs (e.g. \"sm_90\").").format(ctx.label, ctx.attr.archs))
        archs = parse_archs(ctx.attr.archs, "the `archs` attribute of {}".format(ctx.label))
        if archs.error:
            fail(archs.error)
        pinned_list = pinned_arch_list(archs, config.shipped)
    else:
        archs = config.archs
        pinned_list = config.pinned_arch_list
    staged = ctx.attr._staged[BuildSettingInfo].value if ctx.attr.staged == -1 else ctx.attr.staged == 1
    check_nvcc_options(ctx.label, "copts", ctx.attr.copts, staged)
    if not staged:
        # One nvcc action cannot be given another list: nvcc's own (mixing
        # lists is safe, docs/cuda_library.md "CCCL").
        pinned_list = ""
    lto = [v.virtual for v in archs.virtuals if v.lto]
    if lto and not ctx.attr.rdc:
        fail(("{}: LTO archs ({}) keep NVVM IR for the device link, which needs relocatable device code. " +
              "Fix: set rdc = True on this target, or use sm_NN archs.").format(
            ctx.label,
            ", ".join(["lto_" + v[len("compute_"):] for v in lto]),
        ))

    cu_srcs = [f for f in ctx.files.srcs if f.extension in _CUDA_EXTENSIONS]
    cc_srcs = [f for f in ctx.files.srcs if f.extension in _CC_EXTENSIONS]
    private_hdrs = [f for f in ctx.files.srcs if f.extension in _HDR_EXTENSIONS]

    own = CcInfo(compilation_context = cc_common.create_compilation_context(
        headers = depset(ctx.files.hdrs),
        includes = depset([
            p
            for inc in ctx.attr.includes
            for p in [
                join_path(ctx.label.workspace_root, ctx.label.package, inc),
                join_path(ctx.bin_dir.path, ctx.label.workspace_root, ctx.label.package, inc),
            ]
        ]),
        defines = depset(ctx.attr.defines),
    ))
    deps_cc = [d[CcInfo] for d in ctx.attr.deps] + [cuda.runtime]
    public = cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = deps_cc)
    cctx = public.compilation_context

    # nvcc spells its own include directories <toolkit>/bin/../targets/...:
    # bin/ must exist in the sandbox, so nvcc.profile travels with the headers.
    toolkit_headers = depset(transitive = [cuda.headers, cuda.nvcc_files])
    headers = depset(private_hdrs, transitive = [cctx.headers, toolkit_headers])
    cc_files = cc_toolchain.all_files

    objects = []
    device_link_inputs = []
    ltoir = []
    ptx = []
    cubins = []
    fatbins = []
    plan_files = []
    nvcc_args = nvcc_common_args(ctx, cc_toolchain = cc_toolchain, archs = archs, cctx = cctx)
    for src in cu_srcs:
        if staged:
            r = staged_compile(
                ctx,
                cuda = cuda,
                cc_files = cc_files,
                archs = archs,
                pinned_list = pinned_list,
                nvcc_args = nvcc_args,
                headers = headers,
                toolkit_headers = toolkit_headers,
                src = src,
                planner = ctx.attr._planner[DefaultInfo].files_to_run,
            )
            objects.append(r.obj)
            device_link_inputs += r.device_link_inputs
            ltoir += r.ltoir
            ptx += r.ptx
            cubins += r.cubins
            fatbins.append(r.fatbin)
            plan_files += r.plan_files
        else:
            obj = unstaged_compile(
                ctx,
                cuda = cuda,
                cc_files = cc_files,
                nvcc_args = nvcc_args,
                headers = headers,
                src = src,
            )
            objects.append(obj)
            if ctx.attr.rdc:
                # nvlink takes each arch's code out of the object's fatbinary.
                device_link_inputs += [
                    struct(arch = a, kind = "object", image = obj, script = None, object = obj, label = display_label(ctx.label), src = src.short_path)
                    for a in device_link_archs(archs)
                ]

    cc_compilation_context, cc_outputs = cc_common.compile(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        srcs = cc_srcs,
        public_hdrs = ctx.files.hdrs,
        # The C++ rules reject header extensions they do not know (.cuh).
        private_hdrs = [h for h in private_hdrs if h.extension != "cuh"],
        compilation_contexts = [cctx],
        user_compile_flags = ctx.attr.host_copts,
        local_defines = ctx.attr.local_defines,
    )
    cu_outputs = cc_common.create_compilation_outputs(
        objects = depset(objects),
        pic_objects = depset(objects),
    )
    linking_context, linking_outputs = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        name = ctx.label.name,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        compilation_outputs = cc_common.merge_compilation_outputs(compilation_outputs = [cc_outputs, cu_outputs]),
        user_link_flags = ctx.attr.linkopts,
        # The device link registers every relocatable module it linked, so
        # each one's host object must be in the binary.
        alwayslink = ctx.attr.alwayslink or ctx.attr.rdc,
        disallow_dynamic_library = True,
    )
    cc_info = cc_common.merge_cc_infos(
        direct_cc_infos = [CcInfo(compilation_context = cc_compilation_context, linking_context = linking_context)],
        cc_infos = deps_cc,
    )
    library = linking_outputs.library_to_link
    default_files = []
    if library:
        default_files = [f for f in [library.static_library, library.pic_static_library] if f]
    return [
        DefaultInfo(files = depset(default_files)),
        cc_info,
        CudaInfo(
            objects = depset(objects),
            ptx = depset(ptx),
            cubins = depset(cubins),
            fatbins = depset(fatbins),
            archs = archs,
            pinned_arch_list = pinned_list,
            rdc = ctx.attr.rdc,
            device_link_inputs = device_link_inputs,
        ),
        OutputGroupInfo(
            ptx = depset(ptx),
            ltoir = depset(ltoir),
            cubin = depset(cubins),
            fatbin = depset(fatbins),
            cuda_objects = depset(objects),
            cuda_plan = depset(plan_files),
        ),
    ]

_ATTRS = {
    "srcs": attr.label_list(
        allow_files = ["." + e for e in _CUDA_EXTENSIONS + _CC_EXTENSIONS + _HDR_EXTENSIONS],
        doc = ".cu files (compiled in stages), C/C++ files (compiled by the C++ toolchain) and private headers.",
    ),
    "hdrs": attr.label_list(allow_files = ["." + e for e in _HDR_EXTENSIONS], doc = "Public headers."),
    "deps": attr.label_list(providers = [CcInfo], doc = "cuda_library and cc_library targets."),
    "copts": attr.string_list(doc = "nvcc options for .cu files (e.g. -O3, -lineinfo, --use_fast_math, -Xptxas=-v)."),
    "host_copts": attr.string_list(doc = "Host compiler options: passed with -Xcompiler to .cu stages, as is to .cc files."),
    "ptxasopts": attr.string_list(doc = "ptxas options (passed as -Xptxas)."),
    "defines": attr.string_list(doc = "Preprocessor defines for this target and its dependents."),
    "local_defines": attr.string_list(doc = "Preprocessor defines for this target only."),
    "includes": attr.string_list(doc = "Include directories (package-relative) for this target and its dependents."),
    "linkopts": attr.string_list(doc = "Linker options for binaries that depend on this target."),
    "alwayslink": attr.bool(default = False, doc = "Link every object even if nothing references it."),
    "rdc": attr.bool(
        default = False,
        doc = "Relocatable device code (nvcc -rdc): device functions and variables may be used across .cu files and " +
              "targets, and kernels may launch kernels (dynamic parallelism). Binaries device-link it per arch " +
              "(cuda_binary / cuda_test do; cc_binary: add a cuda_device_link). Needed for lto_NN archs.",
    ),
    "archs": attr.string(doc = "Overrides --@rules_cuda_stages//cuda_rules:archs for this target, e.g. \"sm_80,sm_90a,compute_90\". " +
                               "Archs of the shipped set get its __CUDA_ARCH_LIST__, as the build's archs do."),
    "staged": attr.int(
        default = -1,
        values = [-1, 0, 1],
        doc = "Set through the cuda_library macro's `staged = True/False`: 1 staged, 0 one nvcc action, -1 the build setting.",
    ),
    "_arch_config": attr.label(default = "//cuda_rules:arch_config", providers = [CudaArchConfigInfo]),
    "_staged": attr.label(default = "//cuda_rules:staged"),
    "_planner": attr.label(default = "//tools/nvcc_plan:planner", executable = True, cfg = "exec"),
}

cuda_library_rule = rule(
    implementation = _cuda_library_impl,
    doc = """CUDA and C++ sources compiled into a library usable by cc_binary, cc_library and cuda_library.

Each .cu file is compiled as one Bazel action per nvcc stage (CudaPlan, CudaHostPreprocess,
CudaFrontend, and per arch CudaDevicePreprocess, CudaCicc, CudaPtxas, then CudaFatbinary and
CudaHostCompile), so caches reuse work per stage and per arch. Output groups: ptx, cubin, fatbin,
cuda_objects, cuda_plan.""",
    attrs = _ATTRS,
    # The heavy per-arch stages run in their own exec groups, so a target can
    # route them to other workers: exec_properties = {"ptxas.Pool": "large"}.
    exec_groups = {
        "cicc": exec_group(toolchains = CUDA_TOOLCHAINS),
        "ptxas": exec_group(toolchains = CUDA_TOOLCHAINS),
    },
    fragments = ["cpp"],
    toolchains = CUDA_TOOLCHAINS + use_cc_toolchain(),
    provides = [CcInfo, CudaInfo],
)

def cuda_library(name, staged = None, **kwargs):
    """CUDA and C++ sources compiled into a library; .cu files one Bazel action per nvcc stage.

    Args:
      name: the target's name.
      staged: True: one action per nvcc stage; False: one nvcc action per source (mnemonic
        CudaCompile, like bazel-contrib/rules_cuda); None (default): --@rules_cuda_stages//cuda_rules:staged.
      **kwargs: the attributes of the rule: srcs, hdrs, deps, copts, host_copts, ptxasopts,
        defines, local_defines, includes, linkopts, alwayslink, archs, and the common ones.
    """
    if staged not in (None, True, False):
        fail("{}: staged must be True, False or None, not {}".format(name, repr(staged)))
    cuda_library_rule(
        name = name,
        staged = -1 if staged == None else (1 if staged else 0),
        **kwargs
    )
