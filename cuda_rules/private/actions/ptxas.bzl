"""CudaPtxas: PTX to a cubin for one real arch."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def ptxas_action(actions, *, cuda, script, ptx, cubin, arch):
    """Assembles one PTX file into a cubin for one real arch (e.g. sm_90a)."""
    run_stage(
        actions,
        script = script,
        inputs = [ptx, cuda.ptxas],
        outputs = [cubin],
        exec_group = "ptxas",
        mnemonic = "CudaPtxas",
        progress_message = "Assembling %{input} for " + arch,
    )
