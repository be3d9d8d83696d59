"""nvcc's command line for a target's .cu files: archs, the target's options, include paths, defines."""

load("//cuda_rules/private:archs.bzl", "gencode_flags")
load("//cuda_rules/private:compile/host_flags.bzl", "xcompiler")

visibility(["//cuda_rules/..."])

# The execroot as the toolkit's paths are spelled in every stage: the same on
# every machine, checkout and sandbox. The user's files (the source, include
# directories) are spelled relative to the execroot instead, as cc rules do:
# compilers print them that way (pkg/k.cu(5): error ...), and where a compiler
# records an absolute path (cicc's -G/-lineinfo file table, gcc's -g
# compilation directory) it joins them with $PWD, which every stage script sets
# to this spelling.
CANONICAL_EXECROOT = "/proc/self/cwd"

def canonical(path):
    """An execroot-relative path spelled through /proc/self/cwd."""
    if path == ".":
        return CANONICAL_EXECROOT
    return CANONICAL_EXECROOT + "/" + path

def join_path(*parts):
    return "/".join([p for p in parts if p and p != "."])

def nvcc_options(*, copts, host_copts, ptxasopts, local_defines, optf, toolchain_flags, split_compile = 1):
    """The options of a target's nvcc commands besides archs, includes and propagated defines.

    Args:
      copts: nvcc options (the build's --@rules_cuda_stages//cuda_rules:copts, then the target's).
      host_copts: host compiler options, passed with -Xcompiler (the build's, then the target's).
      ptxasopts: ptxas options, passed with -Xptxas.
      local_defines: defines of this target only.
      optf: File or None: an nvcc options file (--options-file).
      toolchain_flags: struct from host_flags.classify_host_flags: the C++ toolchain's flags.
      split_compile: the target's split compilation threads (compile/split_compile.bzl; 1: off), also in copts.

    Returns:
      A struct of them.
    """
    return struct(
        copts = copts,
        host_copts = host_copts,
        ptxasopts = ptxasopts,
        local_defines = local_defines,
        optf = optf,
        toolchain_flags = toolchain_flags,
        split_compile = split_compile,
    )

def language_flags(src):
    """nvcc's -x for a CUDA source whose extension nvcc would not compile as CUDA by itself.

    nvcc compiles a .cc, .cpp or .cxx file as plain C++ with the host
    compiler: no device code, no __CUDACC__, no implicit cuda_runtime.h.
    With `-x cu` its plan is a .cu file's (the same stages, named after the
    same stem), which is what rules_cuda passes for every source.

    Args:
      src: File, a CUDA source of the target.

    Returns:
      list of string.
    """
    return [] if src.extension == "cu" else ["-x", "cu"]

def _execroot_relative(path):
    return path or "."

def nvcc_common_args(ctx, target, rdc):
    """nvcc's options for every .cu file of a target (not the source and output).

    Args:
      ctx: the rule context (its label's repository root is an include directory, as for cc rules).
      target: the target context (target.bzl): the C++ toolchain (its compiler is nvcc's host
        compiler), the archs, the compilation context (t.comp.cctx) and the options.
      rdc: whether to compile relocatable device code (-rdc=true).

    Returns:
      Args.
    """
    actions = ctx.actions
    label = ctx.label
    bin_dir = ctx.bin_dir
    cc_toolchain = target.cc_toolchain
    cctx = target.comp.cctx
    options = target.options
    args = actions.args()
    args.add("-ccbin", cc_toolchain.compiler_executable)

    # The C++ toolchain's flags first (the target's own options below win, as
    # in cc rules): its dialect as nvcc's -std (which also tells cudafe++ and
    # cicc), the rest for the host compiler (host_flags.bzl).
    toolchain = options.toolchain_flags
    if toolchain.std:
        args.add("-std=" + toolchain.std)
    args.add_all(toolchain.host, map_each = xcompiler)
    args.add_all(gencode_flags(target.archs))
    if rdc:
        args.add("-rdc=true")
    args.add("-Xcompiler=-fPIC")
    if "clang" not in cc_toolchain.compiler and "-fno-canonical-system-headers" not in toolchain.host:
        # GCC resolves symlinks in the paths of system headers (-isystem) it
        # records in line markers, which would put the toolkit's install
        # location into the device code's debug info. (Bazel's C++ toolchain
        # passes the same flag for the same reason.)
        args.add("-Xcompiler=-fno-canonical-system-headers")
    if options.optf:
        args.add("--options-file", options.optf)
    args.add_all(options.copts)
    args.add_all(options.host_copts, format_each = "-Xcompiler=%s")
    args.add_all(options.ptxasopts, format_each = "-Xptxas=%s")
    args.add_all(cctx.includes, before_each = "-I", map_each = _execroot_relative)
    args.add_all(cctx.quote_includes, before_each = "-I", map_each = _execroot_relative)

    # Like cc rules: #include "pkg/file.h" from the repository's root (source
    # and generated files), through every gcc stage of nvcc's plan.
    root = label.workspace_root or "."
    args.add_all(
        [root, join_path(bin_dir.path, label.workspace_root)],
        format_each = "-Xcompiler=-iquote,%s",
    )
    args.add_all(cctx.system_includes, before_each = "-isystem", map_each = _execroot_relative)
    args.add_all(cctx.defines, format_each = "-D%s")
    args.add_all(options.local_defines, format_each = "-D%s")
    return args
