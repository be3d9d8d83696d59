"""CudaHostPreprocess: the host compiler's -E over the source for the host side (cudafe++'s input)."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def host_preprocess_action(actions, stage, inst, unit):
    """Preprocesses the source for the host side.

    Its inputs are the source, every header it may include (the toolkit's
    too: nvcc spells its include directories <toolkit>/bin/../targets/...,
    so the headers hold a file of bin/) and the host compiler.

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's (or device link's) unit.
    """
    run_stage(actions, stage, inst, unit)
