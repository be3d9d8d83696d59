"""CudaFrontend: cudafe++ splits host code from device code."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def frontend_action(actions, stage, inst, unit):
    """Runs cudafe++ on the host-preprocessed source with the rules' module id.

    Its script blanks the device code cudafe++ keeps as text in the host code
    (compile_scripts.py), so a device-only edit leaves the host compile's
    input as it was.

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's (or device link's) unit.
    """
    run_stage(actions, stage, inst, unit)
