"""CudaPlan: nvcc's own plan for one source (or one device link), written as one script per stage."""

load("//cuda_rules/private:stages.bzl", "PLAN_MNEMONIC")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAIN_TYPE")

visibility(["//cuda_rules/..."])

def in_params_file(args):
    """Makes `args` reach the planner in a params file (one argument per line); returns it.

    CudaPlan runs as a persistent worker where Bazel can (local builds), and a
    worker gets its per-action arguments only from params files: every Args
    of a CudaPlan action goes through here.
    """
    args.use_param_file("@%s", use_always = True)
    args.set_param_file_format("multiline")
    return args

def plan_action(actions, toolchains, unit, verb, nvcc_args):
    """Runs `nvcc --dryrun` with the target's flags and writes every stage's script.

    Args:
      actions: ctx.actions.
      toolchains: the toolchains (compile/target.bzl's toolchains()): cuda, cc_files (nvcc asks the host
        compiler for its version), planner.
      unit: the source's or device link's unit: its layout (JSON naming every stage's outputs,
        tools/nvcc_plan/layout.py reads it), plan_outputs (the stage scripts and CudaPlan's other
        files, declared by the caller) and nvcc_inputs (files nvcc reads to plan besides the
        toolkit: an nvcc options file).
      verb: "compile" (one source of a cuda_library), "device_link", or "clang_compile" (one source
        compiled by clang: toolchains.cc_toolchain's compiler plans it).
      nvcc_args: list of Args, nvcc's (or clang's) options for this source, each given to in_params_file.
    """
    cuda = toolchains.cuda
    args = in_params_file(actions.args())
    args.add(verb)
    args.add(unit.layout, format = "--layout=%s")
    if verb == "clang_compile":
        # clang's own plan (`clang -###`): clang finds the toolkit from
        # --cuda-path (its include/cuda.h says the version; bin/ and
        # nvvm/libdevice/ must exist).
        args.add(toolchains.cc_toolchain.compiler_executable, format = "--clang=%s")
        inputs = depset([unit.layout, cuda.ptxas, cuda.fatbinary] + unit.nvcc_inputs, transitive = [cuda.headers, cuda.cicc_files, toolchains.cc_files])
    else:
        args.add(cuda.nvcc, format = "--nvcc=%s")

        # Not the include tree: nvcc_files holds a header of each include
        # directory (nvcc uses its target directory only if it exists).
        inputs = depset([unit.layout, cuda.nvcc] + unit.nvcc_inputs, transitive = [cuda.nvcc_files, toolchains.cc_files])
    args.add("--")
    actions.run(
        executable = toolchains.planner,
        arguments = [args] + nvcc_args,
        inputs = inputs,
        outputs = unit.plan_outputs,
        mnemonic = PLAN_MNEMONIC,
        # A persistent worker (tools/nvcc_plan/cuda_plan.py --persistent_worker)
        # where the spawn strategy allows: Python and its imports start once
        # per worker instead of once per source. Remote execution and
        # --strategy=CudaPlan=sandboxed run it one-shot, from the same params
        # files, writing the same outputs.
        execution_requirements = {
            "requires-worker-protocol": "json",
            # One process serves every request (in turn: a request takes a
            # few ms), so a build starts Python once and asks nvcc once per
            # set of flags. With --noworker_multiplex, Bazel runs singleplex
            # workers instead.
            "supports-multiplex-workers": "1",
            "supports-workers": "1",
        },
        progress_message = "Planning nvcc stages of %{label}",
        toolchain = CUDA_TOOLCHAIN_TYPE,
    )
