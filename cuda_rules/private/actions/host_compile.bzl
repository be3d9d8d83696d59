"""CudaHostCompile: the host object, with the registration stub and a declaration of the fatbinary."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def host_compile_action(actions, stage, inst, unit):
    """Compiles cudafe++'s host output, which #includes the stub and (in place of the fatbinary) its declaration.

    No device code is among its inputs: a change of the arch set or of
    device code alone leaves its key as it was (CudaEmbedFatbin adds the
    fatbinary).

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's (or device link's) unit.
    """
    run_stage(actions, stage, inst, unit)
