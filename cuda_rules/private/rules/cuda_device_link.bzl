"""cuda_device_link: one device link of all the relocatable device code below it, for a binary."""

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
load("//cuda_rules/private:compile/host_flags.bzl", "classify_host_flags", "toolchain_compile_flags")
load("//cuda_rules/private:compile/target.bzl", "toolchains")
load("//cuda_rules/private:requires_cuda.bzl", "with_requires_cuda")
load("//cuda_rules/private:stages.bzl", "LINK_TABLE")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAINS")

visibility(["//cuda_rules/...", "//tests/..."])

def _cuda_device_link_impl(ctx):
    resolved = struct(**toolchains(ctx))
    deps_cc = [d[CcInfo] for d in ctx.attr.deps]
    runfiles = ctx.runfiles().merge_all([d[DefaultInfo].default_runfiles for d in ctx.attr.deps])
    below = collect_device_link_inputs(ctx.attr.deps)
    inputs = below.inputs.to_list()
    if not inputs:
        # Nothing relocatable below: the deps as they are.
        return [DefaultInfo(runfiles = runfiles), cc_common.merge_cc_infos(cc_infos = deps_cc)]
    host_flags = classify_host_flags(toolchain_compile_flags(ctx, resolved.cc_toolchain, resolved.feature_configuration), nvcc_sets_std = False).host
    dlink = device_link(ctx, resolved, inputs, below.non_rdc.to_list(), ctx.attr.dlinkopts, host_flags)
    cuda = resolved.cuda
    runtime = [cuda.runtime] + ([cuda.cudadevrt] if cuda.cudadevrt else [])
    return [
        DefaultInfo(files = depset([dlink.obj]), runfiles = runfiles),
        CcInfo(
            compilation_context = cc_common.merge_cc_infos(cc_infos = deps_cc).compilation_context,
            linking_context = linking_context_with_device_link(ctx, resolved, own = None, dlink_obj = dlink.obj, deps = deps_cc + runtime),
        ),
        OutputGroupInfo(
            cubin = depset(dlink.cubins),
            fatbin = depset([dlink.fatbin]),
            device_link = depset(dlink.cubins + dlink.reg_cs + [dlink.fatbin, dlink.obj]),
            cuda_objects = depset(dlink.objects),
            cuda_plan = depset(dlink.plan_files),
        ),
    ]

cuda_device_link_rule = rule(
    implementation = _cuda_device_link_impl,
    doc = """Device-links all the relocatable device code below `deps` once, for a binary.

A cuda_library(rdc = True) device-links its own closure, so a cc_binary over one such library
needs nothing more. A binary over several rdc libraries that share relocatable code below them
(two device links of one module would make two copies of its device globals) depends on one
cuda_device_link over them instead, and on nothing else that links them:

    cuda_device_link(name = "app_device_code", deps = [":solver", ":mesh"])
    cc_binary(name = "app", srcs = ["main.cc"], deps = [":app_device_code"])

It links everything below it (CcInfo of `deps`, and its runfiles), with one CudaDeviceLink per
real arch over that arch's code of every rdc source; the rdc libraries' own device links below it
are left out. cuda_binary and cuda_test create one. With no relocatable code below, it only passes
`deps` on.""",
    attrs = {
        "deps": attr.label_list(
            providers = [CcInfo],
            aspects = [device_link_inputs_aspect],
            doc = "What the binary links (cuda_library, cc_library): every rdc source below them is device-linked.",
        ),
        "dlinkopts": attr.string_list(doc = "nvcc options for the device link, e.g. -Xnvlink=--verbose."),
        "_cc_host_compile_flags_to_skip": attr.label(default = "//cuda_rules:cc_host_compile_flags_to_skip"),
        "_planner": attr.label(default = "//tools/nvcc_plan:cuda_plan", executable = True, cfg = "exec"),
    },
    exec_groups = stage_exec_groups(LINK_TABLE),
    fragments = ["cpp"],
    toolchains = CUDA_TOOLCHAINS + use_cc_toolchain(),
    provides = [CcInfo],
)

def cuda_device_link(name, target_compatible_with = None, **kwargs):
    """Device-links the relocatable device code below `deps` once, for a binary.

    The rule and its attributes: [docs/api/rules.md](rules.md#cuda_device_link).

    Args:
      name: the target's name.
      target_compatible_with: as for any rule; requires_cuda() is added.
      **kwargs: the rule's attributes (deps, dlinkopts) and the common ones.
    """
    cuda_device_link_rule(
        name = name,
        target_compatible_with = with_requires_cuda(target_compatible_with),
        **kwargs
    )
