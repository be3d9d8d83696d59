"""Device linking, shared by cuda_library(rdc = True) and cuda_device_link.

One device link covers the relocatable device code of a dependency closure:
CudaPlan plans `nvcc -dlink [-dlto]`, then one CudaDeviceLink per real arch,
CudaFatbinary and CudaLinkStub. Its object goes into the linking context as a
linker input of its own (owner `<target>.rules_cuda_stages_device_link`), so a
device link higher up, which covers the same code and more, can drop it: each
binary links each relocatable module once (registering it twice would make
two copies of its device globals).
"""

load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("//cuda_rules/private:actions/plan.bzl", "in_params_file", "plan_action")
load("//cuda_rules/private:actions/stage.bzl", "run_stages")
load("//cuda_rules/private:archs.bzl", "arch_sort_key")
load("//cuda_rules/private:compile/host_flags.bzl", "xcompiler")
load("//cuda_rules/private:compile/nvcc_args.bzl", "canonical")
load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:providers.bzl", "CudaInfo")
load("//cuda_rules/private:stage_graph.bzl", "instance_key", "unit_graph")
load("//cuda_rules/private:stages.bzl", "DEVICE_LINK_PLACEHOLDER", "KEYS", "LINK_INPUT_KEYS", "LINK_LAYOUT_KEYS", "LINK_TABLE")
load("//cuda_rules/private:unit.bzl", "declare_unit", "layout_object", "link_unit", "paths")

visibility(["//cuda_rules/..."])

DeviceLinkInputsInfo = provider(
    doc = "Relocatable device code in a target's dependency closure (through cc_library too).",
    fields = {
        "inputs": "depset of struct: CudaInfo.device_link_inputs of every rdc cuda_library below.",
        "non_rdc": "depset of string: labels of cuda_library targets below whose device code is not relocatable.",
    },
)

# The attributes through which device code reaches a binary.
DEPS_ATTRS = ["deps", "implementation_deps"]

def _device_link_inputs_aspect_impl(target, ctx):
    inputs = []
    non_rdc = []
    if CudaInfo in target:
        info = target[CudaInfo]
        inputs = info.device_link_inputs
        if not info.rdc and info.objects:
            non_rdc = [display_label(target.label)]
    deps = [
        d[DeviceLinkInputsInfo]
        for attr in DEPS_ATTRS
        for d in getattr(ctx.rule.attr, attr, [])
        if DeviceLinkInputsInfo in d
    ]
    return [DeviceLinkInputsInfo(
        inputs = depset(inputs, transitive = [d.inputs for d in deps]),
        non_rdc = depset(non_rdc, transitive = [d.non_rdc for d in deps]),
    )]

device_link_inputs_aspect = aspect(
    implementation = _device_link_inputs_aspect_impl,
    attr_aspects = DEPS_ATTRS,
    doc = "Collects the relocatable device code below a target, through cc_library and cuda_library deps.",
)

def collect_device_link_inputs(deps):
    """struct(inputs = depset, non_rdc = depset) of the targets in `deps` (with device_link_inputs_aspect)."""
    infos = [d[DeviceLinkInputsInfo] for d in deps if DeviceLinkInputsInfo in d]
    return struct(
        inputs = depset(transitive = [i.inputs for i in infos]),
        non_rdc = depset(transitive = [i.non_rdc for i in infos]),
    )

def _virtual_of(arch):
    return "compute_" + arch[len("sm_"):]

def twice_marker(marker):
    """The hidden symbol every device link of a source defines once (strong): two device links of it clash naming it."""
    return marker.replace("__no_device_link_for__", "__device_linked_twice__", 1)

def device_link(ctx, toolchains, inputs, non_rdc, dlinkopts, host_flags):
    """Registers the device link of `inputs` (every rdc source's code per arch): CudaPlan, then each stage of the link table.

    Args:
      ctx: the rule context (files go under _cuda_dlink/<target>/, apart from any source's _cuda/<target>/<source>/).
      toolchains: the toolchains (target.bzl's toolchains(), or a target context, which has them).
      inputs: list of struct, CudaInfo.device_link_inputs of every source linked.
      non_rdc: list of labels of non-relocatable cuda_library targets below (for nvlink's messages).
      dlinkopts: nvcc options for the device link (-Xnvlink=...).
      host_flags: the C++ toolchain's flags for the link stub's compile (host_flags.bzl; nvcc gives
        -Xcompiler options to that compile only).

    Returns:
      struct(obj, cubins (list), fatbin, reg_cs (list), objects (the host objects linked), plan_files).
    """
    cuda = toolchains.cuda
    by_arch = {}
    sources = {}  # (label, src) -> [arch]
    lto = False
    for i in inputs:
        by_arch.setdefault(i.arch, []).append(i)
        sources.setdefault((i.label, i.src), []).append(i.arch)
        lto = lto or i.code == "nvvm"
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
    clang_sources = {}  # the source as clang's host compile spelled it -> label
    for label, src, main_file in {(i.label, i.src, i.clang_main_file): None for i in inputs if i.clang_main_file}.keys():
        other = clang_sources.setdefault(main_file, label)
        if other != label:
            fail(("{link}: {src} is relocatable device code of both {a} and {b}, compiled by clang: clang names a " +
                  "relocatable module after its source file alone, so nvlink cannot link both. Fix: compile the file " +
                  "in one cuda_library and depend on it from the other, or compile one of them with nvcc " +
                  "(its module ids name the target).").format(link = ctx.label, src = src, a = other, b = label))
    if cuda.nvlink == None:
        fail("{}: the CUDA toolkit has no bin/nvlink, which device linking needs. Fix: use a complete toolkit.".format(ctx.label))

    graph = unit_graph(LINK_TABLE, link_archs = archs, name = ctx.label.name)
    declared = declare_unit(ctx.actions, "_cuda_dlink/{}/".format(ctx.label.name), graph)
    files = declared.files
    markers = sorted({i.marker: None for i in inputs if i.marker}.keys())
    ctx.actions.write(declared.layout, json.encode_indent(layout_object(LINK_LAYOUT_KEYS, {
        "label": display_label(ctx.label),
        "name": ctx.label.name,
        "directory": declared.directory,
        "toolkit_root": canonical(cuda.toolkit_root),
        "archs": archs,
        "lto": lto,
        "inputs": {
            a: [
                layout_object(LINK_INPUT_KEYS, {
                    "code": i.code,
                    "image": i.image.path,
                    "script": i.script.path if i.script else "",
                    "name": "{} ({})".format(i.label, i.src),
                })
                for i in by_arch[a]
            ]
            for a in archs
        },
        "markers": [[m, twice_marker(m)] for m in markers],
        "non_rdc": non_rdc,
        # The host objects nvcc -dlink would read, in link order (for fidelity checks).
        "objects": [o.path for o in objects],
        "files": paths(files),
        "scripts": paths(declared.scripts),
    })))
    unit = link_unit(
        table = LINK_TABLE,
        graph = graph,
        declared = declared,
        cuda = cuda,
        cc_files = toolchains.cc_files,
        link_inputs = by_arch,
        lto = lto,
    )

    nvcc_args = in_params_file(ctx.actions.args())
    nvcc_args.add("-dlink")
    if lto:
        nvcc_args.add("-dlto")
    nvcc_args.add("-ccbin", toolchains.cc_toolchain.compiler_executable)
    nvcc_args.add_all(host_flags, map_each = xcompiler)
    nvcc_args.add_all(["-gencode=arch={},code={}".format(_virtual_of(a), a) for a in archs])
    nvcc_args.add("-Xcompiler=-fPIC")
    nvcc_args.add_all(dlinkopts)
    nvcc_args.add(DEVICE_LINK_PLACEHOLDER)
    nvcc_args.add("-o", files[KEYS.obj])
    plan_action(ctx.actions, toolchains, unit, "device_link", [nvcc_args])
    run_stages(ctx.actions, unit)
    return struct(
        obj = files[KEYS.obj],
        cubins = [files[instance_key(KEYS.cubin, {"arch": a})] for a in archs],
        fatbin = files[KEYS.fatbin],
        reg_cs = [files[instance_key(KEYS.reg_c, {"arch": a})] for a in archs],
        objects = objects,
        plan_files = unit.plan_outputs + [unit.layout],
    )

# The owner of a device link's linker input: the target's label with this suffix.
_OWNER_SUFFIX = ".rules_cuda_stages_device_link"

def _is_device_link(linker_input):
    return linker_input.owner.name.endswith(_OWNER_SUFFIX)

def linking_context_with_device_link(ctx, toolchains, own, dlink_obj, deps):
    """A linking context: `own`, then the device link's object, then `deps`' linker inputs.

    With objects of its own (a cuda_library(rdc = True)), the device link is an
    ordinary archive member, linked when the target's host objects ask for the
    registration functions it defines, as nvcc's and rules_cuda's are: `deps`
    stay a child of the context (in every binary this target's inputs come
    before theirs), so when a binary also depends on an rdc library below, this
    device link (which covers that library's code too) is linked and the lower
    one is not needed. Without objects of its own (a cuda_device_link, or an rdc
    library over other rdc libraries only) nothing before it would ask for it:
    it is always linked, and the device links below are left out (it covers
    their code).

    Args:
      ctx: the rule context.
      toolchains: the toolchains (target.bzl's toolchains(), or a target context): the C++ toolchain and the
        target's feature configuration.
      own: LinkingContext of the target's own objects, or None.
      dlink_obj: File, the device link's object.
      deps: list of CcInfo of the dependencies (the runtimes last).

    Returns:
      LinkingContext.
    """
    own_inputs = [] if own == None else own.linker_inputs.to_list()
    on_demand = any([li.libraries for li in own_inputs])
    dlink_context, _ = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        name = "_cuda_dlink/{}/{}".format(ctx.label.name, ctx.label.name),
        feature_configuration = toolchains.feature_configuration,
        cc_toolchain = toolchains.cc_toolchain,
        compilation_outputs = cc_common.create_compilation_outputs(objects = depset([dlink_obj]), pic_objects = depset([dlink_obj])),
        alwayslink = not on_demand,
        disallow_dynamic_library = True,
    )
    owner = Label(str(ctx.label) + _OWNER_SUFFIX)
    dlink_inputs = [
        cc_common.create_linker_input(owner = owner, libraries = depset(li.libraries), user_link_flags = li.user_link_flags)
        for li in dlink_context.linker_inputs.to_list()
    ]
    below = cc_common.merge_cc_infos(cc_infos = deps).linking_context.linker_inputs
    if on_demand:
        return cc_common.create_linking_context(linker_inputs = depset(own_inputs + dlink_inputs, transitive = [below], order = "topological"))

    # One flat list, in link order: its device link, then everything below
    # but the device links there (which the device runtime is part of).
    ordered = own_inputs + dlink_inputs + [li for li in below.to_list() if not _is_device_link(li)]
    return cc_common.create_linking_context(linker_inputs = depset(ordered, order = "topological"))
