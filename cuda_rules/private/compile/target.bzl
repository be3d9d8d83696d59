"""What cuda_library and cuda_objects share: attributes, archs, options, the compilation context, and compiling the CUDA sources."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@rules_cc//cc:find_cc_toolchain.bzl", "find_cc_toolchain")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//cuda_rules/private:actions/plan.bzl", "in_params_file")
load("//cuda_rules/private:archs.bzl", "device_link_archs", "parse_archs", "pinned_arch_list", "toolkit_archs_error")
load("//cuda_rules/private:compile/clang.bzl", "check_clang", "clang_common_args", "clang_defines_arch_list", "clang_options", "clang_wrapper_headers")
load("//cuda_rules/private:compile/host_flags.bzl", "classify_host_flags", "toolchain_compile_flags")
load("//cuda_rules/private:compile/make_variables.bzl", "expanded_attributes")
load("//cuda_rules/private:compile/nvcc_args.bzl", "join_path", "nvcc_common_args", "nvcc_options")
load("//cuda_rules/private:compile/source_in_one_action.bzl", "compile_source_in_one_action")
load("//cuda_rules/private:compile/source_in_stages.bzl", "compile_source_in_stages", "source_base")
load("//cuda_rules/private:compile/split_compile.bzl", "split_compile_options", "split_compile_threads", "take_split_compile")
load("//cuda_rules/private:device_debug.bzl", "device_debug_requested")
load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:nvcc_options.bzl", "check_known_options", "check_nvcc_options")
load("//cuda_rules/private:providers.bzl", "CudaArchConfigInfo", "CudaInfo", "CudaObjectsInfo")
load("//cuda_rules/private:toolchain.bzl", "find_cuda_toolchain")

visibility(["//cuda_rules/..."])

# Every C++ source is a CUDA translation unit, compiled in stages by nvcc
# (with -x cu where the extension is not .cu), as bazel-contrib/rules_cuda
# compiles every source of its rules: kernels may live in .cc files, and a
# macro that hides device code from a plain C++ compiler never does here.
CUDA_EXTENSIONS = ["cu", "cc", "cpp", "cxx", "c++", "C"]

# C sources: the C++ toolchain's C compiler, as nvcc compiles a .c file.
C_EXTENSIONS = ["c"]
HDR_EXTENSIONS = ["h", "hh", "hpp", "hxx", "inc", "inl", "cuh"]

_COPTS_FLAG = "--@rules_cuda_stages//cuda_rules:copts"
_COMPILER_FLAG = "--@rules_cuda_stages//cuda_rules:compiler"

# rules_cuda's attribute names that mean the same as one of ours.
ALIASES = {
    "host_defines": "defines",
    "host_linkopts": "linkopts",
    "host_local_defines": "local_defines",
}

def compile_attrs(aspects = []):
    """The attributes of the rules that compile .cu files (cuda_library, cuda_objects).

    Args:
      aspects: aspects on deps and implementation_deps.

    Returns:
      A dict of attribute name to attribute.
    """
    return {
        "srcs": attr.label_list(
            allow_files = ["." + e for e in CUDA_EXTENSIONS + C_EXTENSIONS + HDR_EXTENSIONS],
            doc = "Sources and private headers. .cu and C++ files (.cc, .cpp, .cxx, .c++, .C) are CUDA, compiled " +
                  "in stages by nvcc (C++ files with -x cu, as in rules_cuda); .c files are C, compiled by the C++ " +
                  "toolchain. Host-only C++ that should not go through nvcc belongs in a cc_library in deps.",
        ),
        "hdrs": attr.label_list(allow_files = ["." + e for e in HDR_EXTENSIONS], doc = "Public headers."),
        "deps": attr.label_list(
            providers = [[CcInfo], [CudaObjectsInfo]],
            aspects = aspects,
            doc = "cuda_library, cuda_objects and cc_library targets. Their headers reach this target's dependents too.",
        ),
        "implementation_deps": attr.label_list(
            providers = [[CcInfo], [CudaObjectsInfo]],
            aspects = aspects,
            doc = "Like deps, but their headers and include paths are for this target's compiles only (not its " +
                  "dependents'); they are still linked into binaries that depend on this target.",
        ),
        "copts": attr.string_list(doc = "nvcc options for the CUDA sources (e.g. -O3, -lineinfo, --use_fast_math, -Xptxas=-v). " +
                                        "--extended-lambda and --expt-relaxed-constexpr are on by default, as in rules_cuda: " +
                                        "features = [\"-nvcc_extended_lambda\"] / [\"-nvcc_relaxed_constexpr\"] turn them off."),
        "host_copts": attr.string_list(doc = "Host compiler options: passed with -Xcompiler to the CUDA sources' stages, as is to .c files."),
        "ptxasopts": attr.string_list(doc = "ptxas options (passed as -Xptxas)."),
        "defines": attr.string_list(doc = "Preprocessor defines for this target and its dependents (C++ and CUDA). " +
                                          "`host_defines` (rules_cuda's name) is the same."),
        "host_defines": attr.string_list(doc = "rules_cuda's name for `defines` (both apply)."),
        "local_defines": attr.string_list(doc = "Preprocessor defines for this target only. " +
                                                "`host_local_defines` (rules_cuda's name) is the same."),
        "host_local_defines": attr.string_list(doc = "rules_cuda's name for `local_defines` (both apply)."),
        "includes": attr.string_list(doc = "Include directories (package-relative) for this target and its dependents."),
        "optf": attr.label(
            allow_single_file = True,
            doc = "A file of nvcc options (nvcc --options-file), read when nvcc plans the stages.",
        ),
        "archs": attr.string(doc = "Overrides --@rules_cuda_stages//cuda_rules:archs for this target, e.g. \"sm_80,sm_90a,compute_90\". " +
                                   "Archs of the shipped set get its __CUDA_ARCH_LIST__, as the build's archs do."),
        "staged": attr.int(
            default = -1,
            values = [-1, 0, 1],
            doc = "Set through the macro's `staged = True/False`: 1 staged, 0 one nvcc action, -1 the build setting.",
        ),
        "split_compile": attr.int(
            default = -1,
            doc = "nvcc's --split-compile for this target's CUDA sources: device code optimized in N threads inside " +
                  "each CudaCicc (and, from CUDA 13.0, CudaPtxas) action, which declares N CPUs to Bazel. 0: every CPU " +
                  "of the machine (the action runs alone locally); 1: off; -1: --@rules_cuda_stages//cuda_rules:split_compile. " +
                  "--split-compile=N in `copts` does the same (docs/cuda_library.md, \"Split compilation\").",
        ),
        "_split_compile": attr.label(default = "//cuda_rules:split_compile"),
        "_arch_config": attr.label(default = "//cuda_rules:arch_config", providers = [CudaArchConfigInfo]),
        "_staged": attr.label(default = "//cuda_rules:staged"),
        "_copts": attr.label(default = "//cuda_rules:copts"),
        "_host_copts": attr.label(default = "//cuda_rules:host_copts"),
        "_cc_host_compile_flags_to_skip": attr.label(default = "//cuda_rules:cc_host_compile_flags_to_skip"),
        "_device_debug": attr.label(default = "//cuda_rules:device_debug"),
        "_compiler": attr.label(default = "//cuda_rules:compiler"),
        "_runtime": attr.label(default = "//cuda_rules:runtime", providers = [CcInfo]),
        "_planner": attr.label(default = "//tools/nvcc_plan:cuda_plan", executable = True, cfg = "exec"),
        "_clang_embed": attr.label(default = "//tools/nvcc_plan:elf_splice", executable = True, cfg = "exec"),
        "_clang_wrapper_headers": attr.label(default = "//cuda_rules:clang_wrapper_headers", providers = [CcInfo]),
    }

def check_compiler(ctx):
    """The build's CUDA compiler (rules_cuda's flag): "nvcc", or "clang" (compile/clang.bzl).

    Args:
      ctx: the rule context.

    Returns:
      string.
    """
    compiler = ctx.attr._compiler[BuildSettingInfo].value
    if compiler not in ("nvcc", "clang"):
        fail("{}: {}={} is not a CUDA compiler these rules know (nvcc, clang).".format(ctx.label, _COMPILER_FLAG, compiler))
    return compiler

def resolve_archs(ctx):
    """The target's archs and the __CUDA_ARCH_LIST__ its stages get ("" for nvcc's own).

    The build's (//cuda_rules:arch_config), or the target's own `archs`
    attribute under the same rule: every virtual arch in the shipped set ->
    the shipped set's list, else nvcc's own.

    Args:
      ctx: the rule context.

    Returns:
      (struct from archs.parse_archs, string).
    """
    config = ctx.attr._arch_config[CudaArchConfigInfo]
    if not ctx.attr.archs:
        return config.archs, config.pinned_arch_list
    if ctx.attr.archs in ("shipped", "native"):
        fail(("{}: archs = \"{}\" is a value of --@rules_cuda_stages//cuda_rules:archs, not of the `archs` attribute. " +
              "Fix: leave `archs` unset to compile what the build chooses, or name archs (e.g. \"sm_90\").").format(ctx.label, ctx.attr.archs))
    archs = parse_archs(ctx.attr.archs, "the `archs` attribute of {}".format(ctx.label))
    if archs.error:
        fail(archs.error)
    return archs, pinned_arch_list(archs, config.shipped)

def check_toolkit_archs(ctx, cuda, archs):
    """Fails analysis, in one line, when the selected toolkit does not build one of the target's archs.

    Args:
      ctx: the rule context (the label, where the archs come from).
      cuda: CudaToolchainInfo of the selected toolkit.
      archs: a struct from archs.parse_archs.
    """
    origin = "the `archs` attribute" if ctx.attr.archs else ctx.attr._arch_config[CudaArchConfigInfo].archs_origin
    error = toolkit_archs_error(display_label(ctx.label), archs, origin, cuda.version, cuda.supported_archs)
    if error:
        fail(error)

def is_staged(ctx):
    return ctx.attr._staged[BuildSettingInfo].value if ctx.attr.staged == -1 else ctx.attr.staged == 1

# nvcc options rules_cuda gives every compile (its toolchain features
# nvcc_relaxed_constexpr and nvcc_extended_lambda, on by default), so code
# written for it compiles: constexpr host functions called from device code,
# __device__ lambdas (Thrust, NCCL). As there, `features = ["-<feature>"]` (or
# --features=-<feature>) turns one off. {feature: (option, its spellings)}
DEFAULT_NVCC_FEATURES = {
    "nvcc_extended_lambda": ("--extended-lambda", ["--extended-lambda", "-extended-lambda", "--expt-extended-lambda", "-expt-extended-lambda"]),
    "nvcc_relaxed_constexpr": ("--expt-relaxed-constexpr", ["--expt-relaxed-constexpr", "-expt-relaxed-constexpr"]),
}

def default_nvcc_options(disabled_features, copts):
    """rules_cuda's default nvcc options that neither a disabled feature nor `copts` already give.

    Args:
      disabled_features: ctx.disabled_features.
      copts: the build's and the target's nvcc options.

    Returns:
      list of string.
    """
    out = []
    for feature in sorted(DEFAULT_NVCC_FEATURES.keys()):
        option, spellings = DEFAULT_NVCC_FEATURES[feature]
        if feature in disabled_features or [o for o in copts if o in spellings]:
            continue
        out.append(option)
    return out

def _sets_std(copts):
    return [o for o in copts if o.startswith("-std=") or o.startswith("--std=") or o in ("-std", "--std")] != []

def target_options(ctx, staged, cc_toolchain, feature_configuration, attrs, version):
    """The target's nvcc options (the C++ toolchain's flags, the build's flags, then the target's), checked.

    Args:
      ctx: the rule context.
      staged: whether the target compiles in stages.
      cc_toolchain: the C++ toolchain.
      feature_configuration: the target's feature configuration.
      attrs: struct from make_variables.expanded_attributes: the target's options and defines, expanded.
      version: the toolkit's version (the nvcc options a staged target may use depend on it).

    Returns:
      A struct from nvcc_args.nvcc_options.
    """

    # --split-compile is one setting of the target's (compile/split_compile.bzl), given to nvcc once.
    flag_copts, build_threads = take_split_compile(ctx.label, _COPTS_FLAG, ctx.attr._copts[BuildSettingInfo].value)
    own_copts, own_threads = take_split_compile(ctx.label, "copts", attrs.copts)
    threads = split_compile_threads(ctx, build_threads, own_threads)
    check_nvcc_options(ctx.label, _COPTS_FLAG, flag_copts, staged)
    check_nvcc_options(ctx.label, "copts", own_copts, staged)
    if staged:
        # nvcc's plan is the planner's input: an option it does not know fails here, in one line.
        check_known_options(display_label(ctx.label), _COPTS_FLAG, flag_copts, version)
        check_known_options(display_label(ctx.label), "copts", own_copts, version)
    copts = flag_copts + own_copts + split_compile_options(threads)
    copts = default_nvcc_options(ctx.disabled_features, copts) + copts

    # rules_cuda's cuda_device_debug feature (features = [...], --features=) does what the flag does.
    if "cuda_device_debug" in ctx.features or device_debug_requested(ctx.label, ctx.attr._device_debug[BuildSettingInfo].value):
        copts = ["-G"] + copts
    return nvcc_options(
        copts = copts,
        toolchain_flags = classify_host_flags(
            toolchain_compile_flags(ctx, cc_toolchain, feature_configuration),
            nvcc_sets_std = _sets_std(copts),
        ),
        host_copts = ctx.attr._host_copts[BuildSettingInfo].value + attrs.host_copts,
        ptxasopts = attrs.ptxasopts,
        local_defines = attrs.local_defines,
        optf = ctx.file.optf,
        split_compile = threads,
    )

def split_srcs(ctx):
    """struct(cu, cc, hdrs): the target's srcs by kind: CUDA (.cu and C++), C, headers."""
    return struct(
        cu = [f for f in ctx.files.srcs if f.extension in CUDA_EXTENSIONS],
        cc = [f for f in ctx.files.srcs if f.extension in C_EXTENSIONS],
        hdrs = [f for f in ctx.files.srcs if f.extension in HDR_EXTENSIONS],
    )

def compilation(ctx, cuda, srcs, attrs, compiler_headers = []):
    """What the target's sources compile against.

    Args:
      ctx: the rule context.
      cuda: CudaToolchainInfo.
      srcs: struct from split_srcs.
      attrs: struct from make_variables.expanded_attributes.
      compiler_headers: list of CcInfo the CUDA compiler itself needs (clang's
        wrapper headers: compile/clang.bzl's clang_wrapper_headers), for this
        target's CUDA compiles only (not its dependents').

    Returns:
      struct(
        public = CcInfo: this target's headers, includes and defines, and its deps' (what dependents see),
        cctx = CompilationContext the .cu files compile against (implementation_deps' included),
        implementation = list of CompilationContext of implementation_deps,
        compiler_headers = the CcInfo list compiler_headers (in cctx, not in public),
        deps_cc = list of CcInfo below this target for dependents: deps, implementation_deps (their
          linking only), the CUDA runtime,
        headers = depset of File a .cu file may include,
        host_copts, local_defines = the target's, expanded (for its C/C++ sources),
      ).
    """
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
        defines = depset(attrs.defines),
    ))
    runtime = ctx.attr._runtime[CcInfo]
    deps = [d[CcInfo] for d in ctx.attr.deps if CcInfo in d]
    implementation = [d[CcInfo] for d in ctx.attr.implementation_deps if CcInfo in d]
    public = cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = deps + [runtime])
    cctx = cc_common.merge_cc_infos(direct_cc_infos = [public], cc_infos = implementation + compiler_headers).compilation_context

    # nvcc spells its own include directories <toolkit>/bin/../targets/...:
    # bin/ must exist in the sandbox, so nvcc.profile travels with the headers.
    toolkit_headers = depset(transitive = [cuda.headers, cuda.nvcc_files])
    return struct(
        public = public,
        cctx = cctx,
        implementation = [i.compilation_context for i in implementation],
        compiler_headers = compiler_headers,
        deps_cc = deps + [CcInfo(linking_context = i.linking_context) for i in implementation] + [runtime],
        headers = depset(srcs.hdrs, transitive = [cctx.headers, toolkit_headers]),
        host_copts = attrs.host_copts,
        local_defines = attrs.local_defines,
    )

def host_compiler_files(cc_toolchain, cuda):
    """The files of the C++ toolchain that every stage running the host compiler has as inputs.

    The toolchain's own files; and when its compiler is the machine's (Bazel's
    autoconfiguration names it by the path @cuda_host_compiler_id describes),
    that compiler's id (path, version, predefined macros), which the toolchain's
    files do not hold: two machines with different compilers at one path then
    get different keys (repo/host_compiler_id.bzl).

    Args:
      cc_toolchain: CcToolchainInfo.
      cuda: CudaToolchainInfo.

    Returns:
      depset of File.
    """
    id = cuda.host_compiler_id
    if id.compiler and cc_toolchain.compiler_executable == id.compiler:
        return depset([id.file], transitive = [cc_toolchain.all_files])
    return cc_toolchain.all_files

def toolchains(ctx):
    """The toolchains a compiling or device-linking rule uses, resolved once: a dict of the fields below.

    Args:
      ctx: the rule context of a rule with the CUDA and C++ toolchains and a `_planner` attribute.

    Returns:
      dict(cuda = CudaToolchainInfo, cc_toolchain, cc_files = the C++ toolchain's files,
      feature_configuration = the target's, planner = FilesToRunProvider of //tools/nvcc_plan:cuda_plan,
      clang_embed = FilesToRunProvider of //tools/nvcc_plan:elf_splice, or None).
    """
    cc_toolchain = find_cc_toolchain(ctx)
    cuda = find_cuda_toolchain(ctx)
    return dict(
        cuda = cuda,
        cc_toolchain = cc_toolchain,
        cc_files = host_compiler_files(cc_toolchain, cuda),
        feature_configuration = cc_common.configure_features(
            ctx = ctx,
            cc_toolchain = cc_toolchain,
            requested_features = ctx.features,
            unsupported_features = ctx.disabled_features,
        ),
        planner = ctx.attr._planner[DefaultInfo].files_to_run,
        # CudaClangEmbed's tool (compiler=clang), where the rule has it.
        clang_embed = ctx.attr._clang_embed[DefaultInfo].files_to_run if hasattr(ctx.attr, "_clang_embed") else None,
    )

def target_context(ctx):
    """What every compiling rule starts from, resolved once and passed whole, after checking the compiler flag.

    Args:
      ctx: the rule context of a rule with compile_attrs(), the CUDA and C++ toolchains.

    Returns:
      struct: the fields of toolchains(), and archs (the parsed archs), pinned_arch_list (the
      __CUDA_ARCH_LIST__ every stage gets, "" for nvcc's own: always for staged = False), staged,
      options (target_options()), srcs (split_srcs()), comp (compilation()), deps (deps and
      implementation_deps).
    """
    compiler = check_compiler(ctx)
    fields = toolchains(ctx)
    cuda = fields["cuda"]
    archs, pinned_arch_list = resolve_archs(ctx)
    staged = is_staged(ctx)
    srcs = split_srcs(ctx)
    if srcs.cu:
        check_toolkit_archs(ctx, cuda, archs)
        if compiler == "clang":
            check_clang(ctx, fields["cc_toolchain"], cuda, archs, staged)
    attrs = expanded_attributes(ctx, fields["cc_toolchain"], fields["feature_configuration"])
    clang_arch_list = ""
    if compiler == "clang":
        # clang 21 defines no __CUDA_ARCH_LIST__: no stage depends on the other
        # archs. clang 22 defines it, as nvcc does: its compiles get the shipped
        # set's, as nvcc's stages do (clang_common_args). No stage of clang's
        # table is chosen by the list (pinned_arch_list stays nvcc's).
        if clang_defines_arch_list(fields["cc_toolchain"]):
            clang_arch_list = pinned_arch_list
        pinned_arch_list = ""
        options = clang_options(ctx, toolchain_compile_flags(ctx, fields["cc_toolchain"], fields["feature_configuration"]), attrs)
    else:
        options = target_options(ctx, staged, fields["cc_toolchain"], fields["feature_configuration"], attrs, cuda.version)
    return struct(
        archs = archs,
        compiler = compiler,
        # One nvcc action cannot be given another list: nvcc's own (mixing
        # lists is safe, docs/cuda_library.md, "Mixing lists in one binary").
        pinned_arch_list = pinned_arch_list if staged else "",
        # The __CUDA_ARCH_LIST__ clang's driver call sets (compile/clang.bzl), or "".
        clang_arch_list = clang_arch_list,
        staged = staged,
        options = options,
        srcs = srcs,
        comp = compilation(ctx, cuda, srcs, attrs, clang_wrapper_headers(ctx, cuda) if compiler == "clang" else []),
        deps = ctx.attr.deps + ctx.attr.implementation_deps,
        **fields
    )

def compile_cu(ctx, target, rdc, variant):
    """Compiles every CUDA source of the target (.cu and C++ files), in stages or with one nvcc action each.

    Args:
      ctx: the rule context.
      target: the target context (target_context).
      rdc: whether the device code is relocatable.
      variant: the outputs' top directory ("_cuda", "_cuda_rdc").

    Returns:
      struct(objects, device_link_inputs, ltoir, ptx, cubins, fatbins, stubs, preprocessed, plan_files, images): lists
      (images: CudaInfo.images).
    """
    cu_srcs = target.srcs.cu
    out = struct(objects = [], device_link_inputs = [], ltoir = [], ptx = [], cubins = [], fatbins = [], stubs = [], preprocessed = [], plan_files = [], images = [])
    if not cu_srcs:
        return out
    if target.compiler == "clang":
        nvcc_args = clang_common_args(ctx, target, rdc)
    else:
        nvcc_args = nvcc_common_args(ctx, target, rdc)
    if target.staged:
        # Only CudaPlan actions read them (source_in_stages.bzl).
        in_params_file(nvcc_args)
    cu_compile = struct(
        rdc = rdc,
        variant = variant,
        nvcc_args = nvcc_args,
        nvcc_inputs = [target.options.optf] if target.options.optf else [],
    )
    check_output_directories(ctx, cu_srcs)
    for src in cu_srcs:
        check_source_path(ctx.label, src)
        if target.staged:
            r = compile_source_in_stages(ctx, target, cu_compile, src)
            out.objects.append(r.obj)
            out.device_link_inputs.extend(r.device_link_inputs)
            out.ltoir.extend(r.ltoir)
            out.ptx.extend(r.ptx)
            out.cubins.extend(r.cubins)
            out.fatbins.append(r.fatbin)
            if r.stub:
                out.stubs.append(r.stub)
            out.preprocessed.extend(r.preprocessed)
            out.plan_files.extend(r.plan_files)
            out.images.append(r.image)
        else:
            obj = compile_source_in_one_action(ctx, target, cu_compile, src)
            out.objects.append(obj)
            if rdc:
                # nvlink takes each arch's code out of the object's fatbinary.
                out.device_link_inputs.extend([
                    struct(arch = a, code = "object", image = obj, script = None, object = obj, label = display_label(ctx.label), src = src.short_path, marker = "", clang_main_file = "")
                    for a in device_link_archs(target.archs)
                ])
    return out

def cuda_info(target, compiled, objects, rdc, device_link_inputs):
    """The target's CudaInfo (cuda_library's, and cuda_objects' for its relocatable variant).

    Args:
      target: the target context.
      compiled: compile_cu()'s result.
      objects: depset of File, every object the target provides.
      rdc: whether its device code is relocatable.
      device_link_inputs: list of struct, CudaInfo.device_link_inputs.

    Returns:
      CudaInfo.
    """
    return CudaInfo(
        objects = objects,
        ptx = depset(compiled.ptx),
        cubins = depset(compiled.cubins),
        fatbins = depset(compiled.fatbins),
        archs = target.archs,
        pinned_arch_list = target.pinned_arch_list,
        rdc = rdc,
        device_link_inputs = device_link_inputs,
        images = compiled.images,
    )

def check_output_directories(ctx, cu_srcs):
    """Fails analysis naming both sources when two CUDA sources of the target would share an output directory.

    Only `k.cc.cu` next to `k.cc` can (staged.source_base: k.cu -> k/, k.cc -> k.cc/).

    Args:
      ctx: the rule context.
      cu_srcs: list of File.
    """
    seen = {}
    for src in cu_srcs:
        base = source_base(ctx, src)
        if base in seen:
            fail(("{}: {} and {} would compile into the same directory ({}). Fix: rename one of them, or put " +
                  "them in different targets.").format(display_label(ctx.label), seen[base].short_path, src.short_path, base))
        seen[base] = src

# Characters nvcc cannot take in a source's path: it runs its stages through
# /bin/sh with the path in double quotes, where these keep a meaning.
_NVCC_PATH_CHARACTERS = ["\"", "$", "`", "\\", "\n"]

# Starlark has no ord(): the printable ASCII characters, space to ~.
_PRINTABLE_ASCII = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

def _describe_characters(path):
    """The characters of `path` no staged compile can carry, as words for a message ("" if none)."""
    bad = [char for char in _NVCC_PATH_CHARACTERS if char in path]
    words = ["newline" if char == "\n" else char for char in bad]

    # Anything outside printable ASCII: control characters, and every byte of
    # a UTF-8 name (Bazel's strings hold a file name's bytes one per
    # character), which reaches the plan's layout as other characters.
    if [char for char in path.elems() if char not in _PRINTABLE_ASCII and char != "\n"]:
        words.append("characters outside printable ASCII")
    return " ".join(words)

def check_source_path(label, src):
    """Fails analysis naming the file and the characters when nvcc or Bazel cannot carry a source's path.

    Args:
      label: the target, for the message.
      src: File, a .cu source.
    """
    bad = _describe_characters(src.path)
    if bad:
        fail(("{}: {}: nvcc cannot compile a source whose path holds {} (it runs its stages through /bin/sh " +
              "with the path in double quotes, where $ ` \\ \" keep their meaning, and a name outside printable " +
              "ASCII does not reach the stages as the same bytes). Fix: rename the file (or its directory).").format(
            display_label(label),
            src.short_path,
            bad,
        ))

def check_lto(ctx, archs, rdc):
    lto = [v.virtual for v in archs.virtuals if v.lto]
    if lto and not rdc:
        fail(("{}: LTO archs ({}) keep NVVM IR for the device link, which needs relocatable device code. " +
              "Fix: set rdc = True on this target, or use sm_NN archs.").format(
            ctx.label,
            ", ".join(["lto_" + v[len("compute_"):] for v in lto]),
        ))

def compile_cc(ctx, target):
    """The C files in srcs, compiled by the C++ toolchain (and the compilation context for dependents).

    Args:
      ctx: the rule context.
      target: the target context.

    Returns:
      (CompilationContext for dependents, CompilationOutputs).
    """
    comp = target.comp
    srcs = target.srcs
    context, outputs = cc_common.compile(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = target.feature_configuration,
        cc_toolchain = target.cc_toolchain,
        srcs = srcs.cc,
        public_hdrs = ctx.files.hdrs,
        # The C++ rules reject header extensions they do not know (.cuh).
        private_hdrs = [h for h in srcs.hdrs if h.extension != "cuh"],
        compilation_contexts = [comp.cctx],
        user_compile_flags = ctx.attr._host_copts[BuildSettingInfo].value + comp.host_copts,
        local_defines = comp.local_defines,
    )
    if comp.implementation or comp.compiler_headers:
        # What dependents see leaves out implementation_deps and the CUDA
        # compiler's own headers (the returned context would include them:
        # compile only knows compilation_contexts).
        context = comp.public.compilation_context
    return context, outputs

def cuda_objects_of(ctx, deps, rdc):
    """What cuda_objects targets in `deps` give a library to archive.

    Args:
      ctx: the rule context of the target archiving them (for messages).
      deps: list of targets.
      rdc: whether the target links relocatable device code.

    Returns:
      struct(objects, device_link_inputs), depsets.
    """
    infos = [d[CudaObjectsInfo] for d in deps if CudaObjectsInfo in d]
    if not rdc:
        for i in infos:
            if i.whole == None:
                fail(("{}: cuda_objects {} (or one below it) compiles LTO archs (lto_NN), which need relocatable " +
                      "device code. Fix: set rdc = True on {}.").format(ctx.label, i.label, ctx.label))
    return struct(
        objects = depset(transitive = [i.relocatable if rdc else i.whole for i in infos]),
        device_link_inputs = depset(transitive = [i.device_link_inputs for i in infos]) if rdc else depset(),
    )
