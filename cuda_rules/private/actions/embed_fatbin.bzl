"""CudaEmbedFatbin: a source's object, its host object linked with the fatbinary's."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def embed_fatbin_action(actions, *, cuda, script, host_obj, fatbin_c, cc_files, obj):
    """Compiles fatbinary's embedded fatbinary (C) and links it into the host object (ld -r).

    The host compile only declares the fatbinary, so it reads no device code;
    this action is where a source's host code and device code meet. It is
    cheap (a C file of data and a relocatable link), and re-runs when either
    side changes.

    Args:
      actions: ctx.actions.
      cuda: CudaToolchainInfo.
      script: File, the stage script.
      host_obj: File, the host compile's object.
      fatbin_c: File, fatbinary's --embedded-fatbin output.
      cc_files: depset of the host compiler's (and linker's) files.
      obj: File, the source's object.
    """
    run_stage(
        actions,
        script = script,
        inputs = depset([host_obj, fatbin_c], transitive = [cuda.fatbin_header, cc_files]),
        outputs = [obj],
        mnemonic = "CudaEmbedFatbin",
        progress_message = "Embedding device code of %{label}: %{output}",
    )
