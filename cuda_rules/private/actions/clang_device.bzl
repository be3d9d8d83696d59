"""CudaClangDevice: clang's device compile of a source for one GPU arch, to PTX."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def clang_device_action(actions, stage, inst, unit):
    """Compiles the source for one GPU arch (clang -cc1 -triple nvptx64-nvidia-cuda -target-cpu sm_NN -S).

    Its key is its command (clang's own job: the arch, the target's flags,
    the module id as -cuid, no other arch: clang defines no
    __CUDA_ARCH_LIST__) and its inputs: the source and headers, the C++
    toolchain's files (clang and its resource directory) and the toolkit's
    headers and libdevice.

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's unit.
    """
    run_stage(actions, stage, inst, unit)
