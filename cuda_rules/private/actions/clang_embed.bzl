"""CudaClangEmbed: a clang-compiled source's object, its fatbinary spliced into the host object."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def clang_embed_action(actions, stage, inst, unit):
    """Fills the host object's empty .nv_fatbin section with the fatbinary (tools/nvcc_plan/elf_splice.py).

    CudaClangHost compiled the host side against an empty fatbinary, so it
    waits for no device stage; this stage gives the object clang's own
    one-shot compile writes, byte for byte. Its key is the script (the
    section and the files), the splice tool and the two inputs; for
    relocatable code also the C++ toolchain's files: its clang compiles the
    check symbol only a device link defines and joins it to the object
    (clang_scripts.embed_script).

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance (layout.stage_instances).
      unit: the source's unit: clang_embed, the splice tool (FilesToRunProvider); rdc.
    """
    run_stage(actions, stage, inst, unit, more_inputs = [unit.cc_files] if unit.rdc else [], tool = unit.clang_embed)
