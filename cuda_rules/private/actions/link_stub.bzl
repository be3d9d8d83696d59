"""CudaLinkStub: a device link's object, crt/link.stub compiled with the linked fatbinary."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def link_stub_action(actions, stage, inst, unit):
    """Compiles crt/link.stub with the linked fatbinary, the modules to register and the link-error markers.

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's (or device link's) unit.
    """
    run_stage(actions, stage, inst, unit)
