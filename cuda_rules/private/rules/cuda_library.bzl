"""cuda_library: CUDA and C++ sources compiled into a library, one action per nvcc stage."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@rules_cc//cc:find_cc_toolchain.bzl", "find_cc_toolchain", "use_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//cuda_rules/private:actions/cicc.bzl", "cicc_action")
load("//cuda_rules/private:actions/compile.bzl", "compile_action")
load("//cuda_rules/private:actions/fatbinary.bzl", "fatbinary_action")
load("//cuda_rules/private:actions/frontend.bzl", "frontend_action")
load("//cuda_rules/private:actions/host_compile.bzl", "host_compile_action")
load("//cuda_rules/private:actions/plan.bzl", "plan_action")
load("//cuda_rules/private:actions/preprocess.bzl", "device_preprocess_action", "host_preprocess_action")
load("//cuda_rules/private:actions/ptxas.bzl", "ptxas_action")
load("//cuda_rules/private:archs.bzl", "device_link_archs", "gencode_flags", "parse_archs", "pinned_arch_list")
load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:module_id.bzl", "module_id")
load("//cuda_rules/private:providers.bzl", "CudaArchConfigInfo", "CudaInfo")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAINS", "find_cuda_toolchain")

visibility(["//cuda_rules/...", "//tests/..."])

_CUDA_EXTENSIONS = ["cu"]
_CC_EXTENSIONS = ["cc", "cpp", "cxx", "c++", "C", "c"]
_HDR_EXTENSIONS = ["h", "hh", "hpp", "hxx", "inc", "inl", "cuh"]

# nvcc options the rules set themselves or cannot map onto stages, with the fix.
# Prefix of reasons that hold only for staged compilation (one nvcc action
# would accept the option).
_STAGED_ONLY = "staged: "
_ARCH_FIX = "choose archs with the `archs` attribute or --@rules_cuda_stages//cuda_rules:archs"
_RDC_FIX = "set rdc = True on the target"
_DLINK_FIX = "cuda_binary / cuda_test device-link rdc code themselves (cc_binary: add a cuda_device_link to its deps)"
_UNSUPPORTED = {
    "-gencode": _ARCH_FIX,
    "--generate-code": _ARCH_FIX,
    "-arch": _ARCH_FIX,
    "--gpu-architecture": _ARCH_FIX,
    "-code": _ARCH_FIX,
    "--gpu-code": _ARCH_FIX,
    "-ccbin": "the host compiler is the C++ toolchain's compiler",
    "--compiler-bindir": "the host compiler is the C++ toolchain's compiler",
    "-rdc": _RDC_FIX,
    "--relocatable-device-code": _RDC_FIX,
    "-dc": _RDC_FIX,
    "--device-c": _RDC_FIX,
    "-dw": _RDC_FIX,
    "--device-w": _RDC_FIX,
    "-dlink": _DLINK_FIX,
    "--device-link": _DLINK_FIX,
    "-dlto": "choose LTO archs (lto_NN) in `archs` with rdc = True; binaries then device-link with -dlto",
    "--dlink-time-opt": "choose LTO archs (lto_NN) in `archs` with rdc = True; binaries then device-link with -dlto",
    "-Xnvlink": _DLINK_FIX,
    "-c": "the rules choose what each stage produces",
    "--compile": "the rules choose what each stage produces",
    "-o": "the rules choose what each stage produces",
    "--output-file": "the rules choose what each stage produces",
    "-odir": "the rules choose what each stage produces",
    "--output-directory": "the rules choose what each stage produces",
    "-E": "the rules choose what each stage produces",
    "--preprocess": "the rules choose what each stage produces",
    "-M": "the rules choose what each stage produces",
    "-MM": "the rules choose what each stage produces",
    "-MD": "the rules choose what each stage produces",
    "-MMD": "the rules choose what each stage produces",
    "-ptx": "use the `ptx` output group",
    "--ptx": "use the `ptx` output group",
    "-cubin": "use the `cubin` output group",
    "--cubin": "use the `cubin` output group",
    "-fatbin": "use the `fatbin` output group",
    "--fatbin": "use the `fatbin` output group",
    "-lib": "cuda_library makes the library",
    "--lib": "cuda_library makes the library",
    "-link": "link with cuda_binary / cc_binary",
    "--link": "link with cuda_binary / cc_binary",
    "-run": "run with bazel run",
    "--run": "run with bazel run",
    "-keep": "each stage's outputs are Bazel outputs already (output groups)",
    "--keep": "each stage's outputs are Bazel outputs already (output groups)",
    "-keep-dir": "each stage's outputs are Bazel outputs already (output groups)",
    "--keep-dir": "each stage's outputs are Bazel outputs already (output groups)",
    "-save-temps": "each stage's outputs are Bazel outputs already (output groups)",
    "--save-temps": "each stage's outputs are Bazel outputs already (output groups)",
    "-dryrun": "see `bazel run //tools/nvcc_plan -- <nvcc args>`",
    "--dryrun": "see `bazel run //tools/nvcc_plan -- <nvcc args>`",
    "-t": _STAGED_ONLY + "the stages already run in parallel as separate actions",
    "--threads": _STAGED_ONLY + "the stages already run in parallel as separate actions",
    "-x": "only .cu files are compiled as CUDA",
    "--x": "only .cu files are compiled as CUDA",
    "-cuda": "the rules choose what each stage produces",
    "--cuda": "the rules choose what each stage produces",
}

def _option_name(opt):
    name = opt.split("=", 1)[0]
    if name.startswith("-t") and name[2:].isdigit():
        return "-t"
    return name

def check_nvcc_options(label, attr_name, options, staged):
    """Fails analysis if `options` holds an nvcc option the rules own or cannot stage.

    Args:
      label: the target, for the message.
      attr_name: where the options came from, for the message.
      options: list of strings.
      staged: whether the target is compiled in stages.
    """
    for opt in options:
        name = _option_name(opt)
        why = _UNSUPPORTED.get(name)
        if why == None:
            continue
        if why.startswith(_STAGED_ONLY):
            if not staged:
                continue
            fix = "Remove it, or set staged = False on this target to run nvcc as one action."
            why = why[len(_STAGED_ONLY):]
        else:
            fix = "Remove it."
        fail("{label}: nvcc option '{opt}' in `{attr}` is not allowed: {why}. {fix}".format(
            label = label,
            opt = opt,
            attr = attr_name,
            why = why,
            fix = fix,
        ))

def _rel_no_ext(ctx, src):
    path = src.short_path
    if path.startswith("../"):  # ../<repo>/<path> for sources of other repositories
        path = path.split("/", 2)[2]
    package = ctx.label.package
    if package and path.startswith(package + "/"):
        path = path[len(package) + 1:]
    return path.rpartition(".")[0]

# Every path that reaches a compiler is spelled from the execroot through
# /proc/self/cwd: device debug info and -lineinfo record absolute file paths
# (cicc joins relative ones with its working directory, a sandbox or checkout
# path), and this spelling is the same on every machine, checkout and sandbox.
CANONICAL_EXECROOT = "/proc/self/cwd"

def _canonical(path):
    if path == ".":
        return CANONICAL_EXECROOT
    return CANONICAL_EXECROOT + "/" + path

def _nvcc_common_args(ctx, cc_toolchain, archs, cctx):
    args = ctx.actions.args()
    args.add("-ccbin", cc_toolchain.compiler_executable)
    args.add_all(gencode_flags(archs))
    if ctx.attr.rdc:
        args.add("-rdc=true")
    args.add("-Xcompiler=-fPIC")
    if "clang" not in cc_toolchain.compiler:
        # GCC resolves symlinks in the paths of system headers (-isystem) it
        # records in line markers, which would put the toolkit's install
        # location into the device code's debug info. (Bazel's C++ toolchain
        # passes the same flag for the same reason.)
        args.add("-Xcompiler=-fno-canonical-system-headers")
    args.add_all(ctx.attr.copts)
    args.add_all(ctx.attr.host_copts, format_each = "-Xcompiler=%s")
    args.add_all(ctx.attr.ptxasopts, format_each = "-Xptxas=%s")
    args.add_all(cctx.includes, before_each = "-I", map_each = _canonical)
    args.add_all(cctx.quote_includes, before_each = "-I", map_each = _canonical)

    # Like cc rules: #include "pkg/file.h" from the repository's root (source
    # and generated files), through every gcc stage of nvcc's plan.
    root = ctx.label.workspace_root or "."
    args.add_all(
        [root, _join(ctx.bin_dir.path, ctx.label.workspace_root)],
        map_each = _canonical,
        format_each = "-Xcompiler=-iquote,%s",
    )
    args.add_all(cctx.system_includes, before_each = "-isystem", map_each = _canonical)
    args.add_all(cctx.defines, format_each = "-D%s")
    args.add_all(ctx.attr.local_defines, format_each = "-D%s")
    return args

def _staged_compile(ctx, *, cuda, cc_toolchain, cc_files, archs, pinned_list, cctx, headers, toolkit_headers, src):
    """Declares every stage of one .cu and returns struct(obj, ptx, cubins, fatbin, scripts)."""
    stem = src.basename.rpartition(".")[0]
    base = "_cuda/{}/{}".format(ctx.label.name, _rel_no_ext(ctx, src))

    def out(path):
        return ctx.actions.declare_file("{}/{}".format(base, path))

    module_id_file = out(stem + ".module_id")
    module_id_string = module_id(ctx.label, src.short_path)
    ctx.actions.write(module_id_file, module_id_string)

    cpp4 = out(stem + ".cpp4.ii")
    cudafe1_cpp = out(stem + ".cudafe1.cpp")
    fatbin_c = out(stem + ".fatbin.c")
    fatbin = out(stem + ".fatbin")
    obj = out(stem + ".o")
    scripts = {}

    def script(key):
        scripts[key] = out("plan/{}.sh".format(key.replace("/", ".")))
        return scripts[key]

    for key in ["host_preprocess", "frontend", "fatbinary", "host_compile"]:
        script(key)

    files = {
        "cpp4": cpp4.path,
        "cudafe1_cpp": cudafe1_cpp.path,
        "stub_name": stem + ".cudafe1.stub.c",
        "fatbin_c_name": stem + ".fatbin.c",
        "fatbin_c": fatbin_c.path,
        "fatbin": fatbin.path,
        "obj": obj.path,
    }
    per_arch = {}
    reals = []
    for v in archs.virtuals:
        a = v.virtual
        f = struct(
            cpp1 = out("{}/{}.cpp1.ii".format(a, stem)),
            # cicc's output: PTX, or NVVM IR for an LTO arch.
            ptx = out("{}/{}.{}".format(a, stem, "ltoir" if v.lto else "ptx")),
            c = out("{}/{}.cudafe1.c".format(a, stem)),
            stub = out("{}/{}.cudafe1.stub.c".format(a, stem)),
            gpu = out("{}/{}.cudafe1.gpu".format(a, stem)),
            cubins = {r: out("{}/{}/{}.cubin".format(a, r, stem)) for r in v.reals},
            dpp_script = script("device_preprocess/" + a),
            cicc_script = script("cicc/" + a),
            ptxas_scripts = {r: script("ptxas/{}/{}".format(a, r)) for r in v.reals},
        )
        per_arch[a] = f
        files["cpp1/" + a] = f.cpp1.path
        files["ptx/" + a] = f.ptx.path
        files["cicc_c/" + a] = f.c.path
        files["cicc_stub/" + a] = f.stub.path
        files["cicc_gpu/" + a] = f.gpu.path
        for r in v.reals:
            files["cubin/{}/{}".format(a, r)] = f.cubins[r].path
            reals.append("{}/{}".format(a, r))
    last = archs.virtuals[-1].virtual

    device_object_script = script("device_object") if ctx.attr.rdc else None

    layout = out("plan/layout.json")
    nvcc_args_file = out("plan/nvcc_args.json")
    ctx.actions.write(layout, json.encode_indent({
        "label": str(ctx.label),
        "src": _canonical(src.path),
        "toolkit_root": _canonical(cuda.toolkit_root),
        "module_id": module_id_file.path,
        "user_options": ctx.attr.copts,
        "virtual_archs": [v.virtual for v in archs.virtuals],
        "lto_archs": [v.virtual for v in archs.virtuals if v.lto],
        "rdc": ctx.attr.rdc,
        "module_id_string": module_id_string,
        "real_archs": reals,
        "host_compile_stub_arch": last,
        "pinned_arch_list": pinned_list,
        "iquote": [per_arch[last].stub.dirname, fatbin_c.dirname],
        "files": files,
        "scripts": {k: s.path for k, s in scripts.items()},
        "nvcc_args_file": nvcc_args_file.path,
    }))

    nvcc_args = _nvcc_common_args(ctx, cc_toolchain, archs, cctx)
    src_args = ctx.actions.args()
    src_args.add("-c", _canonical(src.path))
    src_args.add("-o", obj)
    plan_action(
        ctx.actions,
        cuda = cuda,
        cc_files = cc_files,
        planner = ctx.attr._planner[DefaultInfo].files_to_run,
        layout = layout,
        scripts = scripts.values() + [nvcc_args_file],
        nvcc_args = [nvcc_args, src_args],
    )
    host_preprocess_action(
        ctx.actions,
        script = scripts["host_preprocess"],
        src = src,
        headers = headers,
        cc_files = cc_files,
        cpp4 = cpp4,
    )
    frontend_action(
        ctx.actions,
        cuda = cuda,
        script = scripts["frontend"],
        cpp4 = cpp4,
        module_id = module_id_file,
        cudafe1_cpp = cudafe1_cpp,
    )
    images = []
    device_link = []
    for v in archs.virtuals:
        f = per_arch[v.virtual]
        device_preprocess_action(
            ctx.actions,
            script = f.dpp_script,
            src = src,
            headers = headers,
            cc_files = cc_files,
            cpp1 = f.cpp1,
            arch = v.virtual,
        )
        cicc_action(
            ctx.actions,
            cuda = cuda,
            script = f.cicc_script,
            cpp1 = f.cpp1,
            module_id = module_id_file,
            ptx = f.ptx,
            side_outputs = [f.c, f.stub, f.gpu],
            arch = v.virtual,
        )
        for r in v.reals:
            ptxas_action(
                ctx.actions,
                cuda = cuda,
                script = f.ptxas_scripts[r],
                ptx = f.ptx,
                cubin = f.cubins[r],
                arch = r,
            )
            images.append(f.cubins[r])
            device_link.append(struct(arch = r, kind = "elf", image = f.cubins[r]))
        if v.ptx or v.lto:
            images.append(f.ptx)
        if v.lto:
            device_link.append(struct(arch = "sm_" + v.virtual[len("compute_"):], kind = "nvvm", image = f.ptx))
    fatbinary_action(
        ctx.actions,
        cuda = cuda,
        script = scripts["fatbinary"],
        images = images,
        fatbin_c = fatbin_c,
        fatbin = fatbin,
    )
    host_compile_action(
        ctx.actions,
        script = scripts["host_compile"],
        cudafe1_cpp = cudafe1_cpp,
        stub = per_arch[last].stub,
        fatbin_c = fatbin_c,
        headers = toolkit_headers,
        cc_files = cc_files,
        obj = obj,
    )
    device_link_inputs = [
        struct(
            arch = d.arch,
            kind = d.kind,
            image = d.image,
            script = device_object_script,
            object = obj,
            label = display_label(ctx.label),
            src = src.short_path,
        )
        for d in device_link
    ] if ctx.attr.rdc else []
    return struct(
        obj = obj,
        device_link_inputs = device_link_inputs,
        ltoir = [per_arch[v.virtual].ptx for v in archs.virtuals if v.lto],
        ptx = [per_arch[v.virtual].ptx for v in archs.virtuals if not v.lto],
        cubins = [c for v in archs.virtuals for c in per_arch[v.virtual].cubins.values()],
        fatbin = fatbin,
        scripts = scripts.values() + [layout, module_id_file, nvcc_args_file],
    )

def _unstaged_compile(ctx, *, cuda, cc_toolchain, cc_files, archs, cctx, headers, src):
    stem = src.basename.rpartition(".")[0]
    obj = ctx.actions.declare_file("_cuda/{}/{}/{}.o".format(ctx.label.name, _rel_no_ext(ctx, src), stem))
    compile_action(
        ctx.actions,
        cuda = cuda,
        src = src,
        headers = headers,
        cc_files = cc_files,
        nvcc_args = _nvcc_common_args(ctx, cc_toolchain, archs, cctx),
        obj = obj,
    )
    return obj

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
                _join(ctx.label.workspace_root, ctx.label.package, inc),
                _join(ctx.bin_dir.path, ctx.label.workspace_root, ctx.label.package, inc),
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
    for src in cu_srcs:
        if staged:
            r = _staged_compile(
                ctx,
                cuda = cuda,
                cc_toolchain = cc_toolchain,
                cc_files = cc_files,
                archs = archs,
                pinned_list = pinned_list,
                cctx = cctx,
                headers = headers,
                toolkit_headers = toolkit_headers,
                src = src,
            )
            objects.append(r.obj)
            device_link_inputs += r.device_link_inputs
            ltoir += r.ltoir
            ptx += r.ptx
            cubins += r.cubins
            fatbins.append(r.fatbin)
            plan_files += r.scripts
        else:
            obj = _unstaged_compile(
                ctx,
                cuda = cuda,
                cc_toolchain = cc_toolchain,
                cc_files = cc_files,
                archs = archs,
                cctx = cctx,
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

def _join(*parts):
    return "/".join([p for p in parts if p and p != "."])

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
    "_planner": attr.label(default = "//tools/nvcc_plan:plan_stages", executable = True, cfg = "exec"),
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
