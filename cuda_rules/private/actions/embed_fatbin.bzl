"""CudaEmbedFatbin: a source's object, its host object linked with the fatbinary's."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def embed_fatbin_action(actions, stage, inst, unit):
    """Compiles fatbinary's embedded fatbinary (C) and links it into the host object (ld -r).

    The host compile only declares the fatbinary, so it reads no device code;
    this action is where a source's host code and device code meet. It is
    cheap (a C file of data and a relocatable link), and re-runs when either
    side changes.

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's (or device link's) unit.
    """
    run_stage(actions, stage, inst, unit)
