"""CudaPlan: nvcc's own plan for one source, written as one script per stage."""

load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAIN_TYPE")

visibility(["//cuda_rules/..."])

def plan_action(actions, *, cuda, cc_files, planner, layout, scripts, nvcc_args):
    """Runs `nvcc --dryrun` with the target's flags and writes every stage's script.

    Args:
      actions: ctx.actions.
      cuda: CudaToolchainInfo.
      cc_files: depset of the host compiler's files (nvcc asks it for its version).
      planner: FilesToRunProvider of //tools/nvcc_plan:plan_stages.
      layout: File, JSON naming every stage's outputs.
      scripts: list of File, the stage scripts and the record of nvcc's arguments (declared by the caller).
      nvcc_args: list of Args, nvcc's options for this source.
    """
    args = actions.args()
    args.add(layout, format = "--layout=%s")
    args.add(cuda.nvcc, format = "--nvcc=%s")
    args.add("--")
    actions.run(
        executable = planner,
        arguments = [args] + nvcc_args,
        # Not the include tree: nvcc_files holds a header of each include
        # directory (nvcc uses its target directory only if it exists).
        inputs = depset([layout, cuda.nvcc], transitive = [cuda.nvcc_files, cc_files]),
        outputs = scripts,
        mnemonic = "CudaPlan",
        progress_message = "Planning nvcc stages of %{label}",
        toolchain = CUDA_TOOLCHAIN_TYPE,
    )
