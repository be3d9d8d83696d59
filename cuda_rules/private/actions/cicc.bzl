"""CudaCicc: device code to PTX (or NVVM IR) for one virtual arch, and the registration stub."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def cicc_action(actions, stage, inst, unit):
    """Compiles one arch's preprocessed device code to PTX.

    Its inputs are the preprocessed file, the module id and cicc itself: the
    key does not depend on the rest of the build's arch list.

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's (or device link's) unit.
    """
    run_stage(actions, stage, inst, unit)
