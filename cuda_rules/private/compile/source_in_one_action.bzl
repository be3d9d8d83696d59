"""One CUDA source compiled by one nvcc action (staged = False): the escape hatch and the benchmarks' baseline."""

load("//cuda_rules/private:actions/compile.bzl", "compile_action")
load("//cuda_rules/private:compile/source_in_stages.bzl", "source_base")

visibility(["//cuda_rules/..."])

def compile_source_in_one_action(ctx, target, cu_compile, src):
    """Registers one CudaCompile action for `src`.

    Args:
      ctx: the rule context.
      target: the target context (target.bzl's target_context).
      cu_compile: the compile of the target's sources (target.bzl's compile_cu).
      src: File, the CUDA source (.cu, or C++ compiled with -x cu).

    Returns:
      File, the object.
    """
    stem = src.basename.rpartition(".")[0]
    obj = ctx.actions.declare_file("{}{}.o".format(source_base(ctx, src, cu_compile.variant), stem))
    compile_action(ctx.actions, target, cu_compile, src, obj)
    return obj
