"""CudaHostCompile: the host object, with the registration stub and a declaration of the fatbinary."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def host_compile_action(actions, *, script, cudafe1_cpp, stub, fatbin_decl, headers, cc_files, obj):
    """Compiles cudafe++'s host output, which #includes the stub and (in place of the fatbinary) its declaration.

    No device code is among its inputs: a change of the arch set or of
    device code alone leaves its key as it was (CudaEmbedFatbin adds the
    fatbinary).

    Args:
      actions: ctx.actions.
      script: File, the stage script.
      cudafe1_cpp: File, cudafe++'s host code.
      stub: File, the registration stub (written by the stub arch's cicc).
      fatbin_decl: File, the fatbinary's declaration (written by CudaPlan).
      headers: depset of File, the toolkit's headers cudafe++'s output includes
        (crt/host_runtime.h's; the rest of the source's headers are already
        preprocessed into it).
      cc_files: depset of the host compiler's files.
      obj: File, the host object.
    """
    run_stage(
        actions,
        script = script,
        inputs = depset([cudafe1_cpp, stub, fatbin_decl], transitive = [headers, cc_files]),
        outputs = [obj],
        mnemonic = "CudaHostCompile",
        progress_message = "Compiling host code of %{label}: %{output}",
    )
