"""One CUDA source compiled in stages: every file of the stage table declared, its layout, CudaPlan, then one action per stage instance."""

load("//cuda_rules/private:actions/index.bzl", "run_stages")
load("//cuda_rules/private:actions/plan.bzl", "in_params_file", "plan_action")
load("//cuda_rules/private:compile/clang.bzl", "clang_source_args")
load("//cuda_rules/private:compile/nvcc_args.bzl", "canonical", "language_flags")
load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:layout.bzl", "declare_compile_files", "layout_object", "paths", "stub_arch")
load("//cuda_rules/private:stages.bzl", "ARCH_KEYS", "CLANG_TABLE", "COMPILE_LAYOUT_KEYS", "COMPILE_TABLE", "DEVICE_OBJECT_SCRIPT")

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

def compile_source_in_stages(ctx, t, c, src):
    """Declares and registers every stage of one CUDA source: CudaPlan, then each stage of the table.

    Args:
      ctx: the rule context.
      t: the target context (target.bzl's target_context).
      c: the compile of the target's sources (target.bzl's compile_cu): rdc, variant, nvcc_args
        (nvcc's options for the target, in a params file), nvcc_inputs (an nvcc options file).
      src: File, the CUDA source (.cu, or C++ compiled with -x cu).

    Returns:
      struct(obj, device_link_inputs, ltoir, ptx, cubins, fatbin, stub, plan_files, image): image is
      CudaInfo.images' entry for the source.
    """
    archs = t.archs
    stem = src.basename.rpartition(".")[0]
    clang = t.compiler == "clang"
    table = CLANG_TABLE if clang else COMPILE_TABLE
    d = declare_compile_files(ctx.actions, table = table, base = source_base(ctx, src, c.variant), stem = stem, archs = archs, rdc = c.rdc)
    files = d.files
    scripts = d.scripts
    ctx.actions.write(d.layout, json.encode_indent(layout_object(COMPILE_LAYOUT_KEYS, {
        "label": str(ctx.label),
        "display_label": display_label(ctx.label),
        "src": canonical(src.path),
        "src_short_path": src.short_path,
        "stem": stem,
        "directory": d.directory,
        "toolkit_root": canonical(t.cuda.toolkit_root),
        "archs": [layout_object(ARCH_KEYS, {"lto": v.lto, "ptx": v.ptx, "reals": v.reals, "virtual": v.virtual}) for v in archs.virtuals],
        "rdc": c.rdc,
        "link_marker": link_marker(ctx.label, src) if c.rdc else "",
        "pinned_arch_list": t.pinned_list,
        "user_options": t.options.copts,
        # clang's driver takes the C++ toolchain's flags itself (compile/clang.bzl): none to sort.
        "host_toolchain_flags": [] if clang else t.options.toolchain_flags.host,
        "device_toolchain_flags": [] if clang else t.options.toolchain_flags.device,
        "files": paths(files),
        "scripts": paths(scripts),
        "table": table.name,
    })))
    unit = struct(
        table = table,
        cuda = t.cuda,
        cc_files = t.cc_files,
        src = src,
        headers = t.comp.headers,
        archs = archs,
        link_archs = [],
        stub_arch = stub_arch(archs, t.pinned_list),
        files = files,
        scripts = scripts,
        layout = d.layout,
        plan_outputs = scripts.values() + [files[o.key] for o in table.plan_outputs],
        nvcc_inputs = c.nvcc_inputs,
        clang_embed = t.clang_embed,
        rdc = c.rdc,
    )
    if clang:
        plan_action(ctx.actions, t, unit, "clang_compile", [c.nvcc_args, in_params_file(clang_source_args(ctx.actions, src, files["obj"]))])
        run_stages(ctx.actions, unit)
        return _compiled(ctx, d, src, archs, c.rdc, table, clang_main_file = src.path)

    src_args = in_params_file(ctx.actions.args())
    src_args.add_all(language_flags(src))
    src_args.add("-c", src.path)
    src_args.add("-o", files["obj"])
    plan_action(ctx.actions, t, unit, "compile", [c.nvcc_args, src_args])
    run_stages(ctx.actions, unit)
    return _compiled(ctx, d, src, archs, c.rdc, table)

def _compiled(ctx, d, src, archs, rdc, table, clang_main_file = ""):
    """What a source's stages made, as the target's providers list it.

    clang_main_file: for a clang-compiled source, its path as clang's host
    compile spells it, which alone names its relocatable module (clang_scripts.rdc_module_id).
    """
    files = d.files
    obj = files["obj"]
    device_link_inputs = []
    if rdc:
        # Per virtual arch: its cubins (elf), then its LTO IR (nvvm): nvlink reads them per real arch.
        for v in archs.virtuals:
            images = [struct(arch = r, kind = "elf", image = files["cubin/{}/{}".format(v.virtual, r)]) for r in v.reals]
            if v.lto:
                images.append(struct(arch = "sm_" + v.virtual[len("compute_"):], kind = "nvvm", image = files["ptx/" + v.virtual]))
            device_link_inputs += [
                struct(
                    arch = i.arch,
                    kind = i.kind,
                    image = i.image,
                    script = d.scripts[DEVICE_OBJECT_SCRIPT],
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
        ltoir = [files["ptx/" + v.virtual] for v in archs.virtuals if v.lto],
        ptx = [files["ptx/" + v.virtual] for v in archs.virtuals if not v.lto],
        cubins = [files["cubin/{}/{}".format(v.virtual, r)] for v in archs.virtuals for r in v.reals],
        fatbin = files["fatbin"],
        stub = files.get("stub"),  # none in clang's table
        plan_files = d.scripts.values() + [d.layout] + [files[o.key] for o in table.plan_outputs],
        image = struct(
            src = src,
            fatbin = files["fatbin"],
            ptx = {v.virtual: files["ptx/" + v.virtual] for v in archs.virtuals},
            cubins = {r: files["cubin/{}/{}".format(v.virtual, r)] for v in archs.virtuals for r in v.reals},
        ),
    )
