"""cuda_library: CUDA sources (.cu and C++) compiled into a library, one action per nvcc stage."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//cuda_rules/private:actions/stage.bzl", "stage_exec_groups")
load(
    "//cuda_rules/private:compile/device_link.bzl",
    "collect_device_link_inputs",
    "device_link",
    "device_link_inputs_aspect",
    "linking_context_with_device_link",
)
load(
    "//cuda_rules/private:compile/target.bzl",
    "check_lto",
    "compile_attrs",
    "compile_cc",
    "compile_cu",
    "cuda_info",
    "cuda_objects_of",
    "target_context",
)
load("//cuda_rules/private:nvcc_options.bzl", "check_link_options")
load("//cuda_rules/private:providers.bzl", "CudaInfo")
load("//cuda_rules/private:requires_cuda.bzl", "archs_value", "staged_value", "with_requires_cuda")
load("//cuda_rules/private:stages.bzl", "CLANG_TABLE", "COMPILE_TABLE", "LINK_TABLE")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAINS")

visibility(["//cuda_rules/...", "//tests/..."])

def _cuda_library_impl(ctx):
    target = target_context(ctx)
    linkopts = ctx.attr.linkopts + ctx.attr.host_linkopts
    check_link_options(ctx.label, linkopts)
    rdc = ctx.attr.rdc
    check_lto(ctx, target.archs, rdc)

    own = compile_cu(ctx, target, rdc = rdc, variant = "_cuda")

    # cuda_objects below: their objects go into this library (their
    # relocatable ones, to be device-linked here, if this library is rdc).
    objects_below = cuda_objects_of(ctx, target.deps, rdc)
    cc_compilation_context, cc_outputs = compile_cc(ctx, target)
    archived = depset(own.objects, transitive = [objects_below.objects])
    linking_context, linking_outputs = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        name = ctx.label.name,
        feature_configuration = target.feature_configuration,
        cc_toolchain = target.cc_toolchain,
        compilation_outputs = cc_common.merge_compilation_outputs(compilation_outputs = [
            cc_outputs,
            cc_common.create_compilation_outputs(objects = archived, pic_objects = archived),
        ]),
        user_link_flags = linkopts,
        # The device link registers every relocatable module it linked, so
        # each one's host object must be in the binary.
        alwayslink = ctx.attr.alwayslink or rdc,
        disallow_dynamic_library = True,
    )

    # rdc: this library device-links the relocatable code of its closure
    # (its own, its cuda_objects', and the rdc libraries' below it), so a
    # plain cc_binary over it links and runs, also when the binary lists rdc
    # libraries below it as well: its device link comes first in every link
    # and covers their code, so theirs are not pulled from their archives
    # (linking_context_with_device_link).
    device_link_inputs = own.device_link_inputs + objects_below.device_link_inputs.to_list()
    dlink = None
    if rdc:
        below = collect_device_link_inputs(target.deps)
        closure = depset(device_link_inputs, transitive = [below.inputs]).to_list()
        if closure:
            dlink = device_link(ctx, target, closure, below.non_rdc.to_list(), ctx.attr.dlinkopts, target.options.toolchain_flags.host)
    if dlink:
        runtime = [target.cuda.cudadevrt] if target.cuda.cudadevrt else []
        cc_info = CcInfo(
            compilation_context = cc_common.merge_cc_infos(
                direct_cc_infos = [CcInfo(compilation_context = cc_compilation_context)],
                cc_infos = target.comp.deps_cc,
            ).compilation_context,
            linking_context = linking_context_with_device_link(ctx, target, own = linking_context, dlink_obj = dlink.obj, deps = target.comp.deps_cc + runtime),
        )
    else:
        cc_info = cc_common.merge_cc_infos(
            direct_cc_infos = [CcInfo(compilation_context = cc_compilation_context, linking_context = linking_context)],
            cc_infos = target.comp.deps_cc,
        )
    library = linking_outputs.library_to_link
    default_files = []
    if library:
        default_files = [f for f in [library.static_library, library.pic_static_library] if f]
    all_objects = depset(own.objects, transitive = [objects_below.objects])
    return [
        DefaultInfo(
            files = depset(default_files),
            runfiles = ctx.runfiles(files = ctx.files.data).merge_all([
                d[DefaultInfo].default_runfiles
                for d in target.deps + ctx.attr.data
            ]),
        ),
        cc_info,
        cuda_info(target, own, objects = all_objects, rdc = rdc, device_link_inputs = device_link_inputs),
        OutputGroupInfo(
            ptx = depset(own.ptx),
            ltoir = depset(own.ltoir),
            cubin = depset(own.cubins + (dlink.cubins if dlink else [])),
            fatbin = depset(own.fatbins + ([dlink.fatbin] if dlink else [])),
            cuda_objects = all_objects,
            # The registration stubs CudaFrontend writes (tests/fidelity compares them with nvcc's).
            registration_stub = depset(own.stubs),
            # CudaPreprocess's outputs (nvcc -keep's .cpp4.ii and .cpp1.ii files).
            preprocessed = depset(own.preprocessed),
            cuda_plan = depset(own.plan_files + (dlink.plan_files if dlink else [])),
            device_link = depset(dlink.cubins + dlink.reg_cs + [dlink.fatbin, dlink.obj] if dlink else []),
            # rules_cuda's names. One object per source serves both (position
            # independent: -fPIC), relocatable with rdc = True.
            lib = depset(default_files),
            pic_lib = depset(default_files),
            objects = depset() if rdc else all_objects,
            pic_objects = depset() if rdc else all_objects,
            rdc_objects = all_objects if rdc else depset(),
            rdc_pic_objects = all_objects if rdc else depset(),
        ),
    ]

# deps and implementation_deps carry the aspect that finds the relocatable code below.
_ATTRS = dict(compile_attrs(aspects = [device_link_inputs_aspect]), **{
    "data": attr.label_list(allow_files = True, doc = "Files the library needs at run time (in the runfiles of binaries over it)."),
    "linkopts": attr.string_list(doc = "Host linker options for binaries that depend on this target. " +
                                       "`host_linkopts` (rules_cuda's name) is the same."),
    "host_linkopts": attr.string_list(doc = "rules_cuda's name for `linkopts` (both apply)."),
    "dlinkopts": attr.string_list(doc = "nvcc options for this library's device link (rdc = True), e.g. -Xnvlink=--verbose. " +
                                        "rules_cuda calls these `linkopts`."),
    "alwayslink": attr.bool(default = False, doc = "Link every object even if nothing references it."),
    "rdc": attr.bool(
        default = False,
        doc = "Relocatable device code (nvcc -rdc): device functions and variables may be used across .cu files and " +
              "targets, and kernels may launch kernels (dynamic parallelism). The library device-links the " +
              "relocatable code of its closure (one CudaDeviceLink per real arch), so a cc_binary over it links " +
              "and runs. Needed for lto_NN archs.",
    ),
})

cuda_library_rule = rule(
    implementation = _cuda_library_impl,
    doc = """CUDA sources compiled into a library usable by cc_binary, cc_library and cuda_library.

Every .cu and C++ source (.cc, .cpp, .cxx: nvcc -x cu, as in rules_cuda) is CUDA, compiled as one
Bazel action per nvcc stage (CudaPlan, CudaPreprocess (the host and every arch's device side),
CudaFrontend (cudafe++ and the registration stub), and per arch CudaCicc, CudaPtxas, then
CudaHostCompile and CudaEmbedFatbin: fatbinary and the object), so caches reuse work per stage and per arch. With rdc = True it
also device-links the relocatable code below it. Output groups: ptx, ltoir, cubin, fatbin,
cuda_objects, cuda_plan, device_link, and rules_cuda's lib, pic_lib, objects, pic_objects,
rdc_objects, rdc_pic_objects.""",
    attrs = _ATTRS,
    exec_groups = stage_exec_groups(COMPILE_TABLE, CLANG_TABLE, LINK_TABLE),
    fragments = ["cpp"],
    toolchains = CUDA_TOOLCHAINS + use_cc_toolchain(),
    provides = [CcInfo, CudaInfo],
)

def cuda_library(name, staged = None, archs = None, target_compatible_with = None, **kwargs):
    """CUDA sources (.cu and C++ files, as in rules_cuda) compiled into a library, one Bazel action per nvcc stage.

    The rule and its attributes: [docs/api/rules.md](rules.md#cuda_library).

    With --@rules_cuda_stages//cuda_rules:enable=false the target is incompatible (skipped by
    `bazel build //...`), as if it were marked `target_compatible_with = requires_cuda()`.

    Args:
      name: the target's name.
      staged: True: one action per nvcc stage; False: one nvcc action per source (mnemonic
        CudaCompile, like bazel-contrib/rules_cuda); None (default): --@rules_cuda_stages//cuda_rules:staged.
      archs: the rule's `archs` (a string); rules_cuda's list of arch specs is accepted too, joined
        (["sm_80", "sm_90"] is "sm_80,sm_90").
      target_compatible_with: as for any rule; requires_cuda() is added.
      **kwargs: the attributes of the rule: srcs, hdrs, deps, implementation_deps, copts, host_copts,
        ptxasopts, defines, host_defines, local_defines, host_local_defines, includes, optf, linkopts,
        host_linkopts, dlinkopts, alwayslink, rdc, archs, data, and the common ones.
    """
    cuda_library_rule(
        name = name,
        staged = staged_value(name, staged),
        archs = archs_value(archs),
        target_compatible_with = with_requires_cuda(target_compatible_with),
        **kwargs
    )
