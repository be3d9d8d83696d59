"""CudaHostPreprocess and CudaDevicePreprocess: the host compiler's -E passes."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def host_preprocess_action(actions, *, script, src, headers, cc_files, cpp4):
    """Preprocesses `src` for the host side (cudafe++'s input).

    Args:
      actions: ctx.actions.
      script: File, the stage script.
      src: File, the .cu source.
      headers: depset of File: every header the source may include, the
        toolkit's included (nvcc spells its include directories
        <toolkit>/bin/../targets/..., so headers must hold a file of bin/).
      cc_files: depset of the host compiler's files.
      cpp4: File, the output.
    """
    run_stage(
        actions,
        script = script,
        inputs = depset([src], transitive = [headers, cc_files]),
        outputs = [cpp4],
        mnemonic = "CudaHostPreprocess",
        progress_message = "Preprocessing host code of %{label}: %{output}",
    )

def device_preprocess_action(actions, *, script, src, headers, cc_files, cpp1, arch):
    """Preprocesses `src` for one virtual arch (cicc's input).

    Args:
      actions: ctx.actions.
      script: File, the stage script.
      src: File, the .cu source.
      headers: depset of File, as for host_preprocess_action.
      cc_files: depset of the host compiler's files.
      cpp1: File, the output.
      arch: the virtual arch, e.g. compute_90.
    """
    run_stage(
        actions,
        script = script,
        inputs = depset([src], transitive = [headers, cc_files]),
        outputs = [cpp1],
        mnemonic = "CudaDevicePreprocess",
        progress_message = "Preprocessing device code of %{label} for " + arch + ": %{output}",
    )
