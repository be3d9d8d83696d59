"""CudaPtxas: PTX to a cubin for one real arch."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def ptxas_action(actions, stage, inst, unit):
    """Assembles one virtual arch's PTX into a cubin for one real arch (e.g. sm_90a).

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's (or device link's) unit.
    """
    run_stage(actions, stage, inst, unit)
