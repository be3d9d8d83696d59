"""The `cuda` module extension: creates the CUDA toolkit repositories."""

load("//cuda_rules/private/repo:toolkit_repository.bzl", "local_toolkit_repository")

visibility(["//cuda_rules/...", "//tests/..."])

_local_toolkit = tag_class(
    doc = "Use a locally installed toolkit. Without this tag the search order is CUDA_PATH, CUDA_HOME, nvcc on PATH, /usr/local/cuda.",
    attrs = {
        "path": attr.string(doc = "Toolkit root (the directory holding bin/nvcc)."),
    },
)

def _cuda_impl(module_ctx):
    path = ""
    for mod in module_ctx.modules:
        for tag in mod.tags.local_toolkit:
            if mod.is_root or not path:
                path = tag.path or path
    local_toolkit_repository(name = "local_cuda", path = path)

cuda = module_extension(
    implementation = _cuda_impl,
    tag_classes = {"local_toolkit": _local_toolkit},
    environ = ["CUDA_PATH", "CUDA_HOME", "PATH"],
)
