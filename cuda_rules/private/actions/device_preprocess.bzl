"""CudaDevicePreprocess: the host compiler's -E over the source for one virtual arch (cicc's input)."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def device_preprocess_action(actions, stage, inst, unit):
    """Preprocesses the source for one virtual arch.

    Its inputs are the source's, as for host_preprocess_action; its command
    holds only the C++ toolchain's flags that shape device code
    (compile_scripts.device_toolchain_flags).

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's (or device link's) unit.
    """
    run_stage(actions, stage, inst, unit)
