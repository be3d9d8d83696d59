"""Running one stage script (written by the CudaPlan action) as one action."""

load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAIN_TYPE")

visibility(["//cuda_rules/..."])

def run_stage(actions, *, script, inputs, outputs, mnemonic, progress_message, exec_group = None):
    """Runs `script` (nvcc's command for one stage) with /bin/sh.

    The script holds the stage's whole command line, so the action's key is
    that command plus the contents of `inputs`: nothing else of the build
    (other archs, other flags) enters it.

    Args:
      actions: ctx.actions.
      script: File, the stage script.
      inputs: list or depset of File the command reads.
      outputs: list of File the command writes.
      mnemonic: the stage's fixed mnemonic.
      progress_message: with %{label}/%{input}/%{output} placeholders.
      exec_group: the rule's exec group for this stage ("cicc", "ptxas"), so
        targets can route it with exec_properties = {"<group>.<key>": ...}.
    """
    args = actions.args()
    args.add(script)
    actions.run(
        executable = "/bin/sh",
        arguments = [args],
        inputs = depset([script], transitive = [inputs] if type(inputs) == "depset" else [depset(inputs)]),
        outputs = outputs,
        mnemonic = mnemonic,
        progress_message = progress_message,
        toolchain = None if exec_group else CUDA_TOOLCHAIN_TYPE,
        exec_group = exec_group,
    )
