"""CudaCicc: device code to PTX for one virtual arch."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def cicc_action(actions, *, cuda, script, cpp1, module_id, ptx, side_outputs, arch):
    """Compiles one arch's preprocessed device code to PTX.

    Its inputs are the preprocessed file, the module id and cicc itself: the
    key does not depend on the rest of the build's arch list.
    """
    run_stage(
        actions,
        script = script,
        inputs = depset([cpp1, module_id], transitive = [cuda.cicc_files]),
        outputs = [ptx] + side_outputs,
        exec_group = "cicc",
        mnemonic = "CudaCicc",
        progress_message = "Compiling device code for " + arch + " (cicc): %{output}",
    )
