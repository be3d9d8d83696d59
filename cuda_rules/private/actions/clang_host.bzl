"""CudaClangHost: clang's host compile of a source, embedding its fatbinary."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def clang_host_action(actions, stage, inst, unit):
    """Compiles the host side of the source (clang -cc1 -triple <host> -emit-obj -fcuda-include-gpubinary).

    Its key is its command (clang's own job) and its inputs: the source and
    headers, the C++ toolchain's files, the toolkit's headers and the
    fatbinary, which clang embeds byte for byte: a host-only edit re-runs
    this stage and the device compiles, and every ptxas whose PTX did not
    change is a cache hit.

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's unit.
    """
    run_stage(actions, stage, inst, unit)
