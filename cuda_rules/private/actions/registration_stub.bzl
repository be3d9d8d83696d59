"""CudaRegistrationStub: the registration stub the host compile includes, from cicc's front end alone."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def registration_stub_action(actions, stage, inst, unit):
    """Writes the source's registration stub: one arch's device preprocess, then cicc's front end only.

    Its inputs are the source's (as for device_preprocess_action), the module
    id and cicc; its command names one fixed arch, the shipped set's last
    (stages.stub_arch), not the build's, so the key is the same in every build
    of the shipped set or a subset of it, and the host compile that reads the
    stub waits for no optimizing cicc. It also writes that arch's NVVM IR (the
    front end's), which the arch's CudaCicc compiles with cicc's back end alone
    (tools/nvcc_plan/cicc_split.py).

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's unit.
    """
    run_stage(actions, stage, inst, unit)
