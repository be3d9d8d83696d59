"""One CUDA source compiled by one nvcc action (staged = False): the escape hatch and the benchmarks' baseline."""

load("//cuda_rules/private:actions/compile.bzl", "compile_action")
load("//cuda_rules/private:compile/nvcc_args.bzl", "language_flags")
load("//cuda_rules/private:compile/staged.bzl", "source_base")

visibility(["//cuda_rules/..."])

def unstaged_compile(ctx, *, cuda, cc_files, nvcc_args, extra_inputs, headers, src, variant = "_cuda"):
    """Registers one CudaCompile action for `src`.

    Args:
      ctx: the rule context.
      cuda: CudaToolchainInfo.
      cc_files: depset of the host compiler's files.
      nvcc_args: Args, nvcc's options for the target.
      extra_inputs: list of File nvcc reads besides the source and headers (an nvcc options file).
      headers: depset of File the source may include.
      src: File, the CUDA source (.cu, or C++ compiled with -x cu).
      variant: the outputs' top directory (staged.source_base).

    Returns:
      File, the object.
    """
    stem = src.basename.rpartition(".")[0]
    obj = ctx.actions.declare_file("{}{}.o".format(source_base(ctx, src, variant), stem))
    compile_action(
        ctx.actions,
        cuda = cuda,
        src = src,
        headers = depset(extra_inputs, transitive = [headers]),
        cc_files = cc_files,
        nvcc_args = nvcc_args,
        language = language_flags(src),
        obj = obj,
    )
    return obj
