"""Repository rule wrapping a locally installed CUDA toolkit.

Every tool, header and library of the toolkit becomes a file of this
repository, so actions name them as labels and see them at execroot-relative
paths (external/<repo>/...), never at the toolkit's install location.
"""

visibility(["//cuda_rules/...", "//tests/..."])

# Top-level entries of a toolkit (NVIDIA's installers and the PyPI-wheel
# layout both use these names).
_TOOLKIT_ENTRIES = ["bin", "include", "lib", "lib64", "nvvm", "targets"]

def _candidates(rctx):
    """Yields (origin, path) pairs in the documented search order."""
    out = []
    if rctx.attr.path:
        out.append(("the `path` attribute", rctx.attr.path))
    for var in ["CUDA_PATH", "CUDA_HOME"]:
        value = rctx.os.environ.get(var, "")
        if value:
            out.append(("$" + var, value))
    nvcc = rctx.which("nvcc")
    if nvcc:
        out.append(("nvcc on PATH ({})".format(nvcc), _nvcc_home(rctx, nvcc)))
    out.append(("the default location", "/usr/local/cuda"))
    return out

def _nvcc_home(rctx, nvcc):
    """Where the nvcc on PATH really lives (it may be a shim script)."""
    rctx.file("_empty.cu", "")
    result = rctx.execute([nvcc, "--dryrun", "-c", "_empty.cu", "-o", "_empty.o"])
    rctx.delete("_empty.cu")
    for line in (result.stderr + result.stdout).splitlines():
        if line.startswith("#$ _HERE_="):
            return line[len("#$ _HERE_="):].strip() + "/.."
    return str(nvcc.realpath.dirname.dirname)

def _is_toolkit(path):
    bin = path.get_child("bin")
    return bin.get_child("nvcc").exists and bin.get_child("nvcc.profile").exists

def find_local_toolkit(rctx):
    """Returns the path of the local toolkit, or None.

    Args:
      rctx: the repository_ctx.

    Returns:
      A path object, or None when no toolkit is found.
    """
    for _, candidate in _candidates(rctx):
        path = rctx.path(candidate)
        if _is_toolkit(path):
            return path.realpath
    return None

def _version_of(rctx, nvcc):
    result = rctx.execute([nvcc, "--version"])
    if result.return_code != 0:
        fail("`{} --version` failed:\n{}".format(nvcc, result.stderr))
    for line in result.stdout.splitlines():
        if "release " in line:
            # "Cuda compilation tools, release 13.0, V13.0.88"
            return line.split("release ")[1].split(",")[0].strip()
    fail("cannot read the CUDA version from `{} --version`:\n{}".format(nvcc, result.stdout))

def _local_toolkit_repository_impl(rctx):
    toolkit = find_local_toolkit(rctx)
    if toolkit == None:
        searched = "\n".join(["  - {}: {}".format(o, p) for o, p in _candidates(rctx)])
        fail(("rules_cuda_stages: no CUDA toolkit found for @{}. Searched (a directory " +
              "with bin/nvcc and bin/nvcc.profile):\n{}\nFix: install the CUDA toolkit, or set CUDA_PATH " +
              "(e.g. `--repo_env=CUDA_PATH=/opt/cuda`).").format(rctx.name, searched))
    for entry in _TOOLKIT_ENTRIES:
        child = toolkit.get_child(entry)
        if child.exists:
            rctx.symlink(child, entry)
    version = _version_of(rctx, toolkit.get_child("bin").get_child("nvcc"))
    rctx.file("version.bzl", "CUDA_VERSION = {}\n".format(repr(version)))
    rctx.template("BUILD.bazel", rctx.attr._build_tpl, {
        "%{version}": version,
    })

local_toolkit_repository = repository_rule(
    implementation = _local_toolkit_repository_impl,
    doc = "Wraps the locally installed CUDA toolkit (CUDA_PATH, CUDA_HOME, nvcc on PATH, /usr/local/cuda).",
    attrs = {
        "path": attr.string(doc = "Explicit toolkit root; searched before the environment."),
        "_build_tpl": attr.label(default = "//cuda_rules/private/repo:BUILD.toolkit.tpl"),
    },
    environ = ["CUDA_PATH", "CUDA_HOME", "PATH"],
    local = True,
)
