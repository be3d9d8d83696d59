"""CudaDeviceLink: nvlink of one real arch over every relocatable source's code for it."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def nvlink_action(actions, stage, inst, unit):
    """Device-links one real arch: every relocatable source's image for it, each wrapped by its source's script.

    Besides what the record says, it reads each linked source's image for this
    arch and the source's plan/device_object.sh (which wraps the image as
    nvcc's objects carry it: the key holds only this arch's device code), and
    libNVVM for an LTO link (-dlto).

    Args:
      actions: ctx.actions.
      stage: its record of the stage table (stages.bzl).
      inst: the instance: {"arch": sm_NN}.
      unit: the device link's unit (compile/device_link.bzl): inputs_by_arch, lto.
    """
    direct = []
    for i in unit.inputs_by_arch[inst["arch"]]:
        direct.append(i.image)
        if i.script:
            direct.append(i.script)
    run_stage(
        actions,
        stage,
        inst,
        unit,
        more_inputs = [depset(direct)] + ([unit.cuda.lto_files] if unit.lto else []),
        more_progress = " (LTO)" if unit.lto else "",
    )
