"""One CUDA source compiled in stages: every file of the stage table declared, CudaPlan, then one action per stage."""

load("//cuda_rules/private:actions/cicc.bzl", "cicc_action")
load("//cuda_rules/private:actions/embed_fatbin.bzl", "embed_fatbin_action")
load("//cuda_rules/private:actions/fatbinary.bzl", "fatbinary_action")
load("//cuda_rules/private:actions/frontend.bzl", "frontend_action")
load("//cuda_rules/private:actions/host_compile.bzl", "host_compile_action")
load("//cuda_rules/private:actions/plan.bzl", "in_params_file", "plan_action")
load("//cuda_rules/private:actions/preprocess.bzl", "device_preprocess_action", "host_preprocess_action")
load("//cuda_rules/private:actions/ptxas.bzl", "ptxas_action")
load("//cuda_rules/private:compile/nvcc_args.bzl", "canonical", "language_flags")
load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:layout.bzl", "declare_compile_files", "paths", "stub_arch")
load("//cuda_rules/private:stages.bzl", "PLAN_OUTPUTS")

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

def staged_compile(ctx, *, cuda, cc_files, archs, pinned_list, rdc, variant, user_options, toolchain_flags, nvcc_args, extra_inputs, headers, src, planner):
    """Declares and registers every stage of one CUDA source.

    Args:
      ctx: the rule context.
      cuda: CudaToolchainInfo.
      cc_files: depset of the host compiler's files.
      archs: a struct from archs.parse_archs.
      pinned_list: the __CUDA_ARCH_LIST__ every stage gets instead of nvcc's, or "".
      rdc: whether the device code is relocatable.
      variant: the outputs' top directory (source_base).
      user_options: list of string, the target's nvcc options (for messages).
      toolchain_flags: struct from host_flags.classify_host_flags (in nvcc_args with -Xcompiler;
        CudaPlan keeps only its `device` flags in the device preprocess commands).
      nvcc_args: Args, nvcc's options for the target (nvcc_args.nvcc_common_args).
      extra_inputs: list of File CudaPlan reads besides the toolkit (an nvcc options file).
      headers: depset of File the source may include (the toolkit's too).
      src: File, the CUDA source (.cu, or C++ compiled with -x cu).
      planner: FilesToRunProvider of //tools/nvcc_plan:planner.

    Returns:
      struct(obj, device_link_inputs, ltoir, ptx, cubins, fatbin, plan_files, image): image is
      CudaInfo.images' entry for the source.
    """
    stem = src.basename.rpartition(".")[0]
    d = declare_compile_files(ctx.actions, base = source_base(ctx, src, variant), stem = stem, archs = archs, rdc = rdc)
    files = d.files
    scripts = d.scripts
    ctx.actions.write(d.layout, json.encode_indent({
        "label": str(ctx.label),
        "display_label": display_label(ctx.label),
        "src": canonical(src.path),
        "src_short_path": src.short_path,
        "stem": stem,
        "directory": d.directory,
        "toolkit_root": canonical(cuda.toolkit_root),
        "archs": [{"lto": v.lto, "ptx": v.ptx, "reals": v.reals, "virtual": v.virtual} for v in archs.virtuals],
        "rdc": rdc,
        "link_marker": link_marker(ctx.label, src) if rdc else "",
        "pinned_arch_list": pinned_list,
        "user_options": user_options,
        "host_toolchain_flags": toolchain_flags.host,
        "device_toolchain_flags": toolchain_flags.device,
        "files": paths(files),
        "scripts": paths(scripts),
    }))

    src_args = in_params_file(ctx.actions.args())
    src_args.add_all(language_flags(src))
    src_args.add("-c", src.path)
    src_args.add("-o", files["obj"])
    plan_action(
        ctx.actions,
        cuda = cuda,
        cc_files = cc_files,
        planner = planner,
        command = "compile",
        layout = d.layout,
        extra_inputs = extra_inputs,
        outputs = scripts.values() + [files[o.key] for o in PLAN_OUTPUTS],
        nvcc_args = [nvcc_args, src_args],
    )
    host_preprocess_action(
        ctx.actions,
        script = scripts["host_preprocess"],
        src = src,
        headers = headers,
        cc_files = cc_files,
        cpp4 = files["cpp4"],
    )
    frontend_action(
        ctx.actions,
        cuda = cuda,
        script = scripts["frontend"],
        cpp4 = files["cpp4"],
        module_id = files["module_id"],
        cudafe1_cpp = files["cudafe1_cpp"],
    )
    images = []
    device_link = []
    for v in archs.virtuals:
        a = v.virtual
        device_preprocess_action(
            ctx.actions,
            script = scripts["device_preprocess/" + a],
            src = src,
            headers = headers,
            cc_files = cc_files,
            cpp1 = files["cpp1/" + a],
            arch = a,
        )
        cicc_action(
            ctx.actions,
            cuda = cuda,
            script = scripts["cicc/" + a],
            cpp1 = files["cpp1/" + a],
            module_id = files["module_id"],
            ptx = files["ptx/" + a],
            side_outputs = [files["cicc_c/" + a], files["cicc_stub/" + a], files["cicc_gpu/" + a]],
            arch = a,
        )
        for r in v.reals:
            key = "{}/{}".format(a, r)
            ptxas_action(
                ctx.actions,
                cuda = cuda,
                script = scripts["ptxas/" + key],
                ptx = files["ptx/" + a],
                cubin = files["cubin/" + key],
                arch = r,
            )
            images.append(files["cubin/" + key])
            device_link.append(struct(arch = r, kind = "elf", image = files["cubin/" + key]))
        if v.ptx or v.lto:
            images.append(files["ptx/" + a])
        if v.lto:
            device_link.append(struct(arch = "sm_" + a[len("compute_"):], kind = "nvvm", image = files["ptx/" + a]))
    fatbinary_action(
        ctx.actions,
        cuda = cuda,
        script = scripts["fatbinary"],
        images = images,
        fatbin_c = files["fatbin_c"],
        fatbin = files["fatbin"],
    )
    host_compile_action(
        ctx.actions,
        script = scripts["host_compile"],
        cudafe1_cpp = files["cudafe1_cpp"],
        stub = files["cicc_stub/" + stub_arch(archs)],
        fatbin_decl = files["fatbin_decl"],
        # nvcc.profile keeps bin/ in the sandbox: nvcc spells an include
        # directory <toolkit>/bin/../include, as in every gcc stage.
        headers = depset(transitive = [cuda.host_compile_headers, cuda.nvcc_files]),
        cc_files = cc_files,
        obj = files["host_obj"],
    )
    embed_fatbin_action(
        ctx.actions,
        cuda = cuda,
        script = scripts["embed_fatbin"],
        host_obj = files["host_obj"],
        fatbin_c = files["fatbin_c"],
        cc_files = cc_files,
        obj = files["obj"],
    )
    obj = files["obj"]
    device_link_inputs = [
        struct(
            arch = dl.arch,
            kind = dl.kind,
            image = dl.image,
            script = scripts["device_object"],
            object = obj,
            label = display_label(ctx.label),
            src = src.short_path,
            marker = link_marker(ctx.label, src),
        )
        for dl in device_link
    ] if rdc else []
    return struct(
        obj = obj,
        device_link_inputs = device_link_inputs,
        ltoir = [files["ptx/" + v.virtual] for v in archs.virtuals if v.lto],
        ptx = [files["ptx/" + v.virtual] for v in archs.virtuals if not v.lto],
        cubins = [files["cubin/{}/{}".format(v.virtual, r)] for v in archs.virtuals for r in v.reals],
        fatbin = files["fatbin"],
        plan_files = scripts.values() + [d.layout] + [files[o.key] for o in PLAN_OUTPUTS],
        image = struct(
            src = src,
            fatbin = files["fatbin"],
            ptx = {v.virtual: files["ptx/" + v.virtual] for v in archs.virtuals},
            cubins = {r: files["cubin/{}/{}".format(v.virtual, r)] for v in archs.virtuals for r in v.reals},
        ),
    )
