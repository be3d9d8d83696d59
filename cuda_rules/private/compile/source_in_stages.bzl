"""One CUDA source compiled in stages: every file of the stage table declared, its layout, CudaPlan, then one action per stage instance."""

load("//cuda_rules/private:actions/plan.bzl", "in_params_file", "plan_action")
load("//cuda_rules/private:actions/stage.bzl", "run_stages")
load("//cuda_rules/private:compile/clang.bzl", "clang_source_args")
load("//cuda_rules/private:compile/nvcc_args.bzl", "canonical", "language_flags")
load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:stage_graph.bzl", "instance_key", "preprocessed_archs", "registration_arch", "unit_graph")
load("//cuda_rules/private:stages.bzl", "ARCH_KEYS", "CLANG_TABLE", "COMPILE_LAYOUT_KEYS", "COMPILE_TABLE", "DEVICE_OBJECT_SCRIPT", "KEYS")
load("//cuda_rules/private:unit.bzl", "declare_unit", "layout_object", "paths", "source_unit")

visibility(["//cuda_rules/..."])

def source_base(ctx, src, variant = "_cuda"):
    """The source's output directory under the package.

    Args:
      ctx: the rule context.
      src: File, the source.
      variant: the top directory: "_cuda", or "_cuda_rdc" for cuda_objects' relocatable variant.

    Returns:
      "<variant>/<target>/<source path in the package, without .cu>/": a .cu
      file's directory drops the extension, any other source's keeps it
      (k.cu -> k/, k.cc -> k.cc/), so k.cu and k.cc of one target do not meet.
    """
    path = src.short_path
    if path.startswith("../"):  # ../<repo>/<path> for sources of other repositories
        path = path.split("/", 2)[2]
    package = ctx.label.package
    if package and path.startswith(package + "/"):
        path = path[len(package) + 1:]
    if src.extension == "cu":
        path = path.rpartition(".")[0]
    return "{}/{}/{}/".format(variant, ctx.label.name, path)

def link_marker(label, src):
    """The hidden symbol a relocatable source's object needs and every device link of it defines.

    A link that never device-linked the source fails with "undefined reference
    to `rules_cuda_stages__no_device_link_for__<target>__<source>`", naming
    both (docs/cuda_library.md, "Link errors").

    Args:
      label: the target's Label.
      src: File, the source.

    Returns:
      A C identifier.
    """
    return "rules_cuda_stages__no_device_link_for__{}__{}".format(_mangle(display_label(label)), _mangle(src.short_path))

def _mangle(text):
    return "".join([c if c.isalnum() else "_" for c in text.elems()]).strip("_")

def compile_source_in_stages(ctx, target, cu_compile, src):
    """Declares and registers every stage of one CUDA source: CudaPlan, then each stage instance of the table.

    Args:
      ctx: the rule context.
      target: the target context (target.bzl's target_context).
      cu_compile: the compile of the target's sources (target.bzl's compile_cu): rdc, variant,
        nvcc_args (nvcc's options for the target, in a params file), nvcc_inputs (an nvcc options file).
      src: File, the CUDA source (.cu, or C++ compiled with -x cu).

    Returns:
      struct(obj, device_link_inputs, ltoir, ptx, cubins, fatbin, stub, plan_files, image): image is
      CudaInfo.images' entry for the source.
    """
    virtuals = target.archs.virtuals
    stem = src.basename.rpartition(".")[0]
    clang = target.compiler == "clang"
    table = CLANG_TABLE if clang else COMPILE_TABLE
    rdc = cu_compile.rdc
    graph = unit_graph(
        table,
        virtuals = virtuals,
        stem = stem,
        registration = registration_arch(virtuals, target.pinned_arch_list),
        device_object = rdc,
        preprocessed = preprocessed_archs(virtuals, target.pinned_arch_list),
    )
    declared = declare_unit(ctx.actions, source_base(ctx, src, cu_compile.variant), graph)
    ctx.actions.write(declared.layout, json.encode_indent(layout_object(COMPILE_LAYOUT_KEYS, {
        "label": str(ctx.label),
        "display_label": display_label(ctx.label),
        "src": canonical(src.path),
        "src_short_path": src.short_path,
        "stem": stem,
        "directory": declared.directory,
        "toolkit_root": canonical(target.cuda.toolkit_root),
        "archs": [layout_object(ARCH_KEYS, {"lto": v.lto, "ptx": v.ptx, "reals": v.reals, "virtual": v.virtual}) for v in virtuals],
        "rdc": rdc,
        "link_marker": link_marker(ctx.label, src) if rdc else "",
        "pinned_arch_list": target.pinned_arch_list,
        "user_options": target.options.copts,
        # clang's driver takes the C++ toolchain's flags itself (compile/clang.bzl): none to sort.
        "host_toolchain_flags": [] if clang else target.options.toolchain_flags.host,
        "device_toolchain_flags": [] if clang else target.options.toolchain_flags.device,
        "files": paths(declared.files),
        "scripts": paths(declared.scripts),
        "table": table.name,
    })))
    unit = source_unit(
        table = table,
        graph = graph,
        declared = declared,
        cuda = target.cuda,
        cc_files = target.cc_files,
        nvcc_inputs = cu_compile.nvcc_inputs,
        src = src,
        headers = target.comp.headers,
        rdc = rdc,
        splice_tool = target.clang_embed,
        split_compile = target.options.split_compile,
        ptx_checked = [v.virtual for v in virtuals if v.ptx and not v.reals and not v.lto],
    )
    obj = declared.files[KEYS.obj]
    if clang:
        source_args = clang_source_args(ctx.actions, src, obj)
    else:
        source_args = ctx.actions.args()
        source_args.add_all(language_flags(src))
        source_args.add("-c", src.path)
        source_args.add("-o", obj)
    plan_action(ctx.actions, target, unit, "clang_compile" if clang else "compile", [cu_compile.nvcc_args, in_params_file(source_args)])
    run_stages(ctx.actions, unit)
    return _compiled(ctx, unit, src, virtuals, src.path if clang else "")

def _compiled(ctx, unit, src, virtuals, clang_main_file):
    """What a source's stages made, as the target's providers list it.

    clang_main_file: for a clang-compiled source, its path as clang's host
    compile spells it, which alone names its relocatable module (clang_scripts.rdc_module_id).
    """
    files = unit.files
    obj = files[KEYS.obj]

    def code(virtual):
        return files[instance_key(KEYS.ptx, {"virtual": virtual})]

    def cubin(virtual, real):
        return files[instance_key(KEYS.cubin, {"real": real, "virtual": virtual})]

    device_link_inputs = []
    if unit.rdc:
        # Per virtual arch: its cubins (elf), then its LTO IR (nvvm): nvlink reads them per real arch.
        for v in virtuals:
            images = [struct(arch = r, code = "elf", image = cubin(v.virtual, r)) for r in v.reals]
            if v.lto:
                images.append(struct(arch = "sm_" + v.virtual[len("compute_"):], code = "nvvm", image = code(v.virtual)))
            device_link_inputs += [
                struct(
                    arch = i.arch,
                    code = i.code,
                    image = i.image,
                    script = unit.scripts[DEVICE_OBJECT_SCRIPT],
                    object = obj,
                    label = display_label(ctx.label),
                    src = src.short_path,
                    marker = link_marker(ctx.label, src),
                    clang_main_file = clang_main_file,
                )
                for i in images
            ]
    return struct(
        obj = obj,
        device_link_inputs = device_link_inputs,
        ltoir = [code(v.virtual) for v in virtuals if v.lto],
        ptx = [code(v.virtual) for v in virtuals if not v.lto],
        cubins = [cubin(v.virtual, r) for v in virtuals for r in v.reals],
        fatbin = files[KEYS.fatbin],
        stub = files.get(KEYS.registration_stub),  # none in clang's table
        # CudaPreprocess's outputs: the host side's and each preprocessed arch's device side.
        preprocessed = [files[k] for k in sorted(files) if k == KEYS.cpp4 or k.startswith(KEYS.cpp1 + "/")],
        plan_files = unit.plan_outputs + [unit.layout],
        image = struct(
            src = src,
            fatbin = files[KEYS.fatbin],
            ptx = {v.virtual: code(v.virtual) for v in virtuals},
            cubins = {r: cubin(v.virtual, r) for v in virtuals for r in v.reals},
        ),
    )
