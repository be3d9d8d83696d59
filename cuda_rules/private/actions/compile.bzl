"""CudaCompile: one nvcc action per source (staged = False; the baseline)."""

load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAIN_TYPE")

visibility(["//cuda_rules/..."])

def compile_action(actions, *, cuda, src, headers, cc_files, nvcc_args, language, obj):
    """Runs the toolkit's nvcc on `src` as one action, the way bazel-contrib/rules_cuda does.

    nvcc embeds temporary file names (tmpxft_<pid>_...) in the object, so the
    output is not reproducible: this mode is the escape hatch and the baseline.

    Args:
      actions: ctx.actions.
      cuda: CudaToolchainInfo.
      src: File, the CUDA source.
      headers: depset of File the source may include.
      cc_files: depset of the host compiler's files.
      nvcc_args: Args, nvcc's options (archs, flags, include paths).
      language: list of string: ["-x", "cu"] for a C++ source, else empty (nvcc_args.language_flags).
      obj: File, the object to write.
    """
    args = actions.args()
    args.add_all(language)
    args.add("-c")
    args.add(src)
    args.add("-o", obj)
    actions.run(
        executable = cuda.nvcc,
        arguments = [nvcc_args, args],
        inputs = depset([src], transitive = [headers, cc_files, cuda.compiler_files]),
        outputs = [obj],
        mnemonic = "CudaCompile",
        # nvcc only adds the toolkit's directories to PATH (nvcc.profile), and
        # the host compiler finds its assembler and linker through PATH: give
        # the action Bazel's default shell environment, as C++ compile actions
        # get (a fixed PATH under --incompatible_strict_action_env). The staged
        # scripts run under /bin/sh, whose default PATH does the same.
        use_default_shell_env = True,
        # The source by name: %{input} would be the first input, a header.
        progress_message = "Compiling %s with nvcc (%%{label})" % src.short_path,
        toolchain = CUDA_TOOLCHAIN_TYPE,
    )
