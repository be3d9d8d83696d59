"""CudaHostCompile: the host object, with the fatbinary and its registration stub."""

load("//cuda_rules/private:actions/stage.bzl", "run_stage")

visibility(["//cuda_rules/..."])

def host_compile_action(actions, *, script, cudafe1_cpp, stub, fatbin_c, headers, cc_files, obj):
    """Compiles cudafe++'s host output, which #includes the stub and the fatbinary."""
    run_stage(
        actions,
        script = script,
        inputs = depset([cudafe1_cpp, stub, fatbin_c], transitive = [headers, cc_files]),
        outputs = [obj],
        mnemonic = "CudaHostCompile",
        progress_message = "Compiling host code of %{label}: %{output}",
    )
