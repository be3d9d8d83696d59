"""CudaFatbinary: a source's (or a device link's) cubins and embedded PTX, packed for embedding."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def fatbinary_action(actions, stage, inst, unit):
    """Packs the cubins (and the PTX or LTO IR it embeds) into a fatbinary and its C form.

    Serves both tables: a source's fatbinary and a device link's.

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's (or device link's) unit.
    """
    run_stage(actions, stage, inst, unit)
