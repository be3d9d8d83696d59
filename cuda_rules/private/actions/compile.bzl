"""CudaCompile: one nvcc action per source (staged = False; the baseline)."""

load("//cuda_rules/private:compile/nvcc_args.bzl", "language_flags")
load("//cuda_rules/private:compile/split_compile.bzl", "split_resource_set")
load("//cuda_rules/private:stages.bzl", "UNSTAGED_MNEMONIC")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAIN_TYPE")

visibility(["//cuda_rules/..."])

def compile_action(actions, target, cu_compile, src, obj):
    """Runs the toolkit's nvcc on `src` as one action, the way bazel-contrib/rules_cuda does.

    nvcc embeds temporary file names (tmpxft_<pid>_...) in the object, so the
    output is not reproducible: this mode is the escape hatch and the baseline.

    Args:
      actions: ctx.actions.
      target: the target context (compile/target.bzl).
      cu_compile: the compile of the target's sources (compile/target.bzl): nvcc_args, nvcc_inputs (an nvcc
        options file, read here too).
      src: File, the CUDA source.
      obj: File, the object to write.
    """
    args = actions.args()
    args.add_all(language_flags(src))
    args.add("-c")
    args.add(src)
    args.add("-o", obj)
    actions.run(
        executable = target.cuda.nvcc,
        arguments = [cu_compile.nvcc_args, args],
        inputs = depset([src], transitive = [depset(cu_compile.nvcc_inputs, transitive = [target.comp.headers]), target.cc_files, target.cuda.compiler_files]),
        outputs = [obj],
        mnemonic = UNSTAGED_MNEMONIC,
        # nvcc only adds the toolkit's directories to PATH (nvcc.profile), and
        # the host compiler finds its assembler and linker through PATH: give
        # the action Bazel's default shell environment, as C++ compile actions
        # get (a fixed PATH under --incompatible_strict_action_env). The staged
        # scripts run under /bin/sh, whose default PATH does the same.
        use_default_shell_env = True,
        # The source by name: %{input} would be the first input, a header.
        progress_message = "Compiling %s with nvcc (%%{label})" % src.short_path,
        toolchain = CUDA_TOOLCHAIN_TYPE,
        # nvcc's --split-compile threads (its cicc and ptxas run one at a time).
        resource_set = split_resource_set(target.options.split_compile),
    )
