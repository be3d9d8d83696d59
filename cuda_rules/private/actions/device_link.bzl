"""CudaDeviceLink and CudaLinkStub: device linking of relocatable device code, per real arch."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def device_link_action(actions, *, cuda, script, inputs, cc_files, lto, cubin, reg_c, arch):
    """nvlink of one real arch over every rdc source's code for that arch.

    Args:
      actions: ctx.actions.
      cuda: CudaToolchainInfo.
      script: File, this arch's stage script.
      inputs: list of device link input structs (CudaInfo.device_link_inputs) for this arch.
      cc_files: depset of the host compiler's files (each input is wrapped into an object).
      lto: whether the link optimises NVVM IR (-dlto), which loads libNVVM.
      cubin: File, the linked cubin.
      reg_c: File, nvlink's registration list of the linked modules.
      arch: sm_NN, for the progress message.
    """
    direct = []
    for i in inputs:
        direct.append(i.image)
        if i.script:
            direct.append(i.script)
    run_stage(
        actions,
        script = script,
        inputs = depset(direct, transitive = [cuda.device_link_files, cuda.headers, cc_files] + ([cuda.lto_files] if lto else [])),
        outputs = [cubin, reg_c],
        mnemonic = "CudaDeviceLink",
        progress_message = "Device-linking %{label} for " + arch + (" (LTO)" if lto else ""),
        exec_group = "dlink",
    )

def link_stub_action(actions, *, cuda, script, fatbin_c, reg_c, markers, cc_files, obj):
    """Compiles crt/link.stub with the linked fatbinary, the modules to register and the link-error markers.

    Args:
      actions: ctx.actions.
      cuda: CudaToolchainInfo.
      script: File, the stage script.
      fatbin_c: File, the linked fatbinary (C).
      reg_c: File, nvlink's registration list.
      markers: File, the symbols that name this link's sources in link errors (CudaPlan's).
      cc_files: depset of the host compiler's files.
      obj: File, the device link's object.
    """
    run_stage(
        actions,
        script = script,
        inputs = depset([fatbin_c, reg_c, markers], transitive = [cuda.device_link_files, cuda.headers, cc_files]),
        outputs = [obj],
        mnemonic = "CudaLinkStub",
        progress_message = "Compiling the device link stub of %{label}",
    )
