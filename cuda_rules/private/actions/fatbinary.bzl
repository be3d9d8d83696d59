"""CudaFatbinary: the cubins and PTX of one source, packed for embedding."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def fatbinary_action(actions, *, cuda, script, images, fatbin_c, fatbin):
    """Packs `images` into a fatbinary and its embeddable C form."""
    run_stage(
        actions,
        script = script,
        inputs = images + [cuda.fatbinary],
        outputs = [fatbin_c, fatbin],
        mnemonic = "CudaFatbinary",
        progress_message = "Packing device code of %{label}: %{output}",
    )
