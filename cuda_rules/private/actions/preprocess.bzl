"""CudaHostPreprocess and CudaDevicePreprocess: the host compiler's -E passes."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def host_preprocess_action(actions, *, script, src, headers, cc_files, cpp4):
    """Preprocesses `src` for the host side (cudafe++'s input)."""
    run_stage(
        actions,
        script = script,
        inputs = depset([src], transitive = [headers, cc_files]),
        outputs = [cpp4],
        mnemonic = "CudaHostPreprocess",
        progress_message = "Preprocessing %{input} (host) for %{label}",
    )

def device_preprocess_action(actions, *, script, src, headers, cc_files, cpp1, arch):
    """Preprocesses `src` for one virtual arch (cicc's input)."""
    run_stage(
        actions,
        script = script,
        inputs = depset([src], transitive = [headers, cc_files]),
        outputs = [cpp1],
        mnemonic = "CudaDevicePreprocess",
        progress_message = "Preprocessing %{input} for " + arch + " (%{label})",
    )
