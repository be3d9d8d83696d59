"""cuda_device_link: device linking of the relocatable device code in a binary's dependencies."""

load("@rules_cc//cc:find_cc_toolchain.bzl", "find_cc_toolchain", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//cuda_rules/private:actions/device_link.bzl", "device_link_action", "link_stub_action")
load("//cuda_rules/private:actions/fatbinary.bzl", "fatbinary_action")
load("//cuda_rules/private:actions/plan.bzl", "plan_action")
load("//cuda_rules/private:archs.bzl", "arch_sort_key")
load("//cuda_rules/private:compile/nvcc_args.bzl", "canonical")
load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:layout.bzl", "declare_link_files", "paths")
load("//cuda_rules/private:providers.bzl", "CudaInfo")
load("//cuda_rules/private:stages.bzl", "DEVICE_LINK_PLACEHOLDER")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAINS", "find_cuda_toolchain")

visibility(["//cuda_rules/...", "//tests/..."])

_DeviceLinkInputsInfo = provider(
    doc = "Relocatable device code in a target's dependency closure (through cc_library too).",
    fields = {
        "inputs": "depset of struct: CudaInfo.device_link_inputs of every rdc target.",
        "non_rdc": "depset of string: labels of cuda_library targets whose device code is not relocatable.",
    },
)

def _device_link_inputs_aspect_impl(target, ctx):
    inputs = []
    non_rdc = []
    if CudaInfo in target:
        info = target[CudaInfo]
        inputs = info.device_link_inputs
        if not info.rdc and info.objects:
            non_rdc = [display_label(target.label)]
    deps = [d[_DeviceLinkInputsInfo] for d in getattr(ctx.rule.attr, "deps", []) if _DeviceLinkInputsInfo in d]
    return [_DeviceLinkInputsInfo(
        inputs = depset(inputs, transitive = [d.inputs for d in deps]),
        non_rdc = depset(non_rdc, transitive = [d.non_rdc for d in deps]),
    )]

device_link_inputs_aspect = aspect(
    implementation = _device_link_inputs_aspect_impl,
    attr_aspects = ["deps"],
    doc = "Collects the relocatable device code below a target, through cc_library and cuda_library deps.",
)

def _virtual_of(arch):
    return "compute_" + arch[len("sm_"):]

def _cuda_device_link_impl(ctx):
    cuda = find_cuda_toolchain(ctx)
    cc_toolchain = find_cc_toolchain(ctx)
    inputs = depset(transitive = [d[_DeviceLinkInputsInfo].inputs for d in ctx.attr.deps]).to_list()
    if not inputs:
        # Nothing relocatable below: nothing to link.
        return [DefaultInfo(), CcInfo()]
    non_rdc = depset(transitive = [d[_DeviceLinkInputsInfo].non_rdc for d in ctx.attr.deps]).to_list()

    by_arch = {}
    sources = {}  # (label, src) -> [arch]
    lto = False
    for i in inputs:
        by_arch.setdefault(i.arch, []).append(i)
        sources.setdefault((i.label, i.src), []).append(i.arch)
        lto = lto or i.kind == "nvvm"
    archs = sorted(by_arch.keys(), key = arch_sort_key)
    objects = {i.object: None for i in inputs}.keys()  # link order, once each
    for (label, src), have in sources.items():
        missing = [a for a in archs if a not in have]
        if missing:
            fail(("{link}: cannot device-link {missing}: {label} has no code for it ({src} was compiled for {have}, " +
                  "other relocatable code in this link for {all}). Every rdc library linked into one binary needs " +
                  "code for the same real archs. Fix: build them with the same archs (sm_NN or lto_NN).").format(
                link = ctx.label,
                missing = ", ".join(missing),
                label = label,
                src = src,
                have = ", ".join(sorted(have, key = arch_sort_key)),
                all = ", ".join(archs),
            ))
    if cuda.nvlink == None:
        fail("{}: the CUDA toolkit has no bin/nvlink, which device linking needs. Fix: use a complete toolkit.".format(ctx.label))

    d = declare_link_files(ctx.actions, base = "_cuda/{}/dlink/".format(ctx.label.name), name = ctx.label.name, link_archs = archs)
    files = d.files
    scripts = d.scripts
    ctx.actions.write(d.layout, json.encode_indent({
        "label": display_label(ctx.label),
        "name": ctx.label.name,
        "directory": d.directory,
        "toolkit_root": canonical(cuda.toolkit_root),
        "archs": archs,
        "lto": lto,
        "inputs": {
            a: [
                {
                    "kind": i.kind,
                    "image": i.image.path,
                    "script": i.script.path if i.script else "",
                    "name": "{} ({})".format(i.label, i.src),
                }
                for i in by_arch[a]
            ]
            for a in archs
        },
        "non_rdc": non_rdc,
        # The host objects nvcc -dlink would read, in link order (for fidelity checks).
        "objects": [o.path for o in objects],
        "files": paths(files),
        "scripts": paths(scripts),
    }))

    nvcc_args = ctx.actions.args()
    nvcc_args.add("-dlink")
    if lto:
        nvcc_args.add("-dlto")
    nvcc_args.add("-ccbin", cc_toolchain.compiler_executable)
    nvcc_args.add_all(["-gencode=arch={},code={}".format(_virtual_of(a), a) for a in archs])
    nvcc_args.add("-Xcompiler=-fPIC")
    nvcc_args.add(DEVICE_LINK_PLACEHOLDER)
    nvcc_args.add("-o", files["obj"])
    plan_action(
        ctx.actions,
        cuda = cuda,
        cc_files = cc_toolchain.all_files,
        planner = ctx.attr._planner[DefaultInfo].files_to_run,
        command = "device_link",
        layout = d.layout,
        outputs = scripts.values() + [files["nvcc_args"]],
        nvcc_args = [nvcc_args],
    )
    for a in archs:
        device_link_action(
            ctx.actions,
            cuda = cuda,
            script = scripts["nvlink/" + a],
            inputs = by_arch[a],
            cc_files = cc_toolchain.all_files,
            lto = lto,
            cubin = files["cubin/" + a],
            reg_c = files["reg_c/" + a],
            arch = a,
        )
    fatbinary_action(
        ctx.actions,
        cuda = cuda,
        script = scripts["fatbinary"],
        images = [files["cubin/" + a] for a in archs],
        fatbin_c = files["fatbin_c"],
        fatbin = files["fatbin"],
    )
    link_stub_action(
        ctx.actions,
        cuda = cuda,
        script = scripts["link_stub"],
        fatbin_c = files["fatbin_c"],
        reg_c = files["reg_c/" + archs[-1]],
        cc_files = cc_toolchain.all_files,
        obj = files["obj"],
    )
    obj = files["obj"]
    fatbin = files["fatbin"]
    reg_cs = {a: files["reg_c/" + a] for a in archs}
    cubins = {a: files["cubin/" + a] for a in archs}

    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    linking_context, _ = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        name = ctx.label.name,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        compilation_outputs = cc_common.create_compilation_outputs(objects = depset([obj]), pic_objects = depset([obj])),
        alwayslink = True,
        disallow_dynamic_library = True,
    )
    runtime = [cuda.runtime] + ([cuda.cudadevrt] if cuda.cudadevrt else [])
    linked = [cubins[a] for a in archs]
    return [
        DefaultInfo(files = depset([obj])),
        cc_common.merge_cc_infos(
            direct_cc_infos = [CcInfo(linking_context = linking_context)],
            cc_infos = runtime,
        ),
        OutputGroupInfo(
            cubin = depset(linked),
            fatbin = depset([fatbin]),
            device_link = depset(linked + [reg_cs[a] for a in archs] + [fatbin, obj]),
            cuda_objects = depset(objects),
            cuda_plan = depset(scripts.values() + [d.layout, files["nvcc_args"]]),
        ),
    ]

cuda_device_link = rule(
    implementation = _cuda_device_link_impl,
    doc = """Device-links the relocatable device code (cuda_library rdc = True) below `deps`.

One CudaDeviceLink action per real arch runs nvlink (with -dlto for lto_NN code) over that
arch's code of every rdc source in the closure, then CudaFatbinary packs the linked cubins and
CudaLinkStub compiles crt/link.stub, which registers them. The result is an object (plus the
device runtime) for the binary's link. cuda_binary and cuda_test create one; a cc_binary over rdc
libraries lists one in its deps:

    cuda_device_link(name = "app_dlink", deps = [":kernels"])
    cc_binary(name = "app", srcs = ["main.cc"], deps = [":kernels", ":app_dlink"])

Link each binary's device code once: two cuda_device_link targets in one binary would register
the same modules twice. With no relocatable code below it, it does nothing.""",
    attrs = {
        "deps": attr.label_list(
            providers = [CcInfo],
            aspects = [device_link_inputs_aspect],
            doc = "The binary's dependencies (cuda_library, cc_library): every rdc source below them is linked.",
        ),
        "_planner": attr.label(default = "//tools/nvcc_plan:planner", executable = True, cfg = "exec"),
    },
    exec_groups = {
        "dlink": exec_group(toolchains = CUDA_TOOLCHAINS),
    },
    fragments = ["cpp"],
    toolchains = CUDA_TOOLCHAINS + use_cc_toolchain(),
    provides = [CcInfo],
)
