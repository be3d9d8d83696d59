"""cuda_objects: CUDA sources compiled to objects that a cuda_library archives (rules_cuda's rule)."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//cuda_rules/private:actions/stage.bzl", "stage_exec_groups")
load(
    "//cuda_rules/private:compile/target.bzl",
    "compile_attrs",
    "compile_cc",
    "compile_cu",
    "cuda_info",
    "cuda_objects_of",
    "target_context",
)
load("//cuda_rules/private:providers.bzl", "CudaInfo", "CudaObjectsInfo")
load("//cuda_rules/private:requires_cuda.bzl", "archs_value", "staged_value", "with_requires_cuda")
load("//cuda_rules/private:stages.bzl", "CLANG_TABLE", "COMPILE_TABLE")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAINS")

visibility(["//cuda_rules/...", "//tests/..."])

def _cuda_objects_impl(ctx):
    target = target_context(ctx)

    # Both kinds of device code, declared: a cuda_library(rdc = True) over this
    # target links the relocatable objects, one without rdc the others. Bazel
    # runs only the compiles whose objects something uses.
    # LTO archs need relocatable device code: no whole-program variant then.
    lto = [v for v in target.archs.virtuals if v.lto]
    variants = {}
    for rdc, variant in ((False, "_cuda"), (True, "_cuda_rdc")):
        if lto and not rdc:
            continue
        variants[rdc] = compile_cu(ctx, target, rdc = rdc, variant = variant)
    cc_compilation_context, cc_outputs = compile_cc(ctx, target)
    cc_objects = cc_outputs.pic_objects or cc_outputs.objects
    relocatable = variants[True]
    below_rdc = cuda_objects_of(ctx, target.deps, True)
    whole_objects = None
    if False in variants:
        below_whole = cuda_objects_of(ctx, target.deps, False)
        whole_objects = depset(variants[False].objects + cc_objects, transitive = [below_whole.objects])
    relocatable_objects = depset(relocatable.objects + cc_objects)
    return [
        # rules_cuda's default output: the relocatable objects.
        DefaultInfo(files = relocatable_objects),
        # Headers, includes and defines for dependents; the objects are linked
        # by the cuda_library that archives them, so no linking of its own.
        cc_common.merge_cc_infos(
            direct_cc_infos = [CcInfo(compilation_context = cc_compilation_context)],
            cc_infos = target.comp.deps_cc,
        ),
        CudaObjectsInfo(
            whole = whole_objects,
            label = ctx.label,
            relocatable = depset(relocatable.objects + cc_objects, transitive = [below_rdc.objects]),
            device_link_inputs = depset(relocatable.device_link_inputs, transitive = [below_rdc.device_link_inputs]),
        ),
        # The relocatable variant; device links reach it through the library.
        cuda_info(target, relocatable, objects = relocatable_objects, rdc = True, device_link_inputs = []),
        OutputGroupInfo(
            objects = depset(variants[False].objects + cc_objects) if False in variants else depset(),
            rdc_objects = relocatable_objects,
            # rules_cuda's names for the same objects (they are position independent: -fPIC).
            pic_objects = depset(variants[False].objects + cc_objects) if False in variants else depset(),
            rdc_pic_objects = relocatable_objects,
            ptx = depset(relocatable.ptx),
            ltoir = depset(relocatable.ltoir),
            cubin = depset(relocatable.cubins),
            fatbin = depset(relocatable.fatbins),
            cuda_plan = depset(relocatable.plan_files),
        ),
    ]

cuda_objects_rule = rule(
    implementation = _cuda_objects_impl,
    doc = """CUDA sources (.cu and C++ files) compiled to objects that a cuda_library archives, as in rules_cuda.

A cuda_library lists cuda_objects targets in `deps`: with rdc = True it archives their
relocatable objects and device-links them with its own code; without rdc, their whole-program
objects. cuda_objects may depend on other cuda_objects (all end up in the library above). The
sources compile in stages, like cuda_library's. Default output: the relocatable objects;
output groups objects, rdc_objects (and rules_cuda's pic_objects, rdc_pic_objects: the same),
ptx, ltoir, cubin, fatbin, cuda_plan.""",
    attrs = compile_attrs(),
    exec_groups = stage_exec_groups(COMPILE_TABLE, CLANG_TABLE),
    fragments = ["cpp"],
    toolchains = CUDA_TOOLCHAINS + use_cc_toolchain(),
    provides = [CcInfo, CudaInfo, CudaObjectsInfo],
)

def cuda_objects(name, staged = None, archs = None, target_compatible_with = None, **kwargs):
    """CUDA sources compiled to objects for a cuda_library to archive (rules_cuda's cuda_objects).

    The rule and its attributes: [docs/api/rules.md](rules.md#cuda_objects).

    Args:
      name: the target's name.
      staged: as for cuda_library.
      archs: as for cuda_library (a string, or rules_cuda's list).
      target_compatible_with: as for any rule; requires_cuda() is added.
      **kwargs: the attributes of the rule: srcs, hdrs, deps, implementation_deps, copts, host_copts,
        ptxasopts, defines, host_defines, local_defines, host_local_defines, includes, optf, archs,
        and the common ones.
    """
    cuda_objects_rule(
        name = name,
        staged = staged_value(name, staged),
        archs = archs_value(archs),
        target_compatible_with = with_requires_cuda(target_compatible_with),
        **kwargs
    )
