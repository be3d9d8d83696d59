"""CudaFrontend: cudafe++ splits host code from device code."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def frontend_action(actions, *, cuda, script, cpp4, module_id, cudafe1_cpp):
    """Runs cudafe++ on the host-preprocessed source with the rules' module id."""
    run_stage(
        actions,
        script = script,
        inputs = [cpp4, module_id, cuda.cudafe],
        outputs = [cudafe1_cpp],
        mnemonic = "CudaFrontend",
        progress_message = "Splitting host code of %{label} (cudafe++): %{output}",
    )
