"""The `cuda` module extension: creates the CUDA toolkit repositories."""

load("//cuda_rules/private/repo:cuda_versions.bzl", "CUDA_VERSIONS")
load(
    "//cuda_rules/private/repo:toolkit_repository.bzl",
    "cuda_toolchains_hub",
    "local_toolkit_repository",
    "select_wheels",
    "wheel_toolkit_repository",
)

visibility(["//cuda_rules/...", "//tests/..."])

DEFAULT_TOOLKIT = "13.0"

_toolkit = tag_class(
    doc = """A hermetic CUDA toolkit from NVIDIA's PyPI wheels, fetched with Bazel's downloader and
pinned by sha256 (cuda_rules/private/repo/cuda_versions.bzl). Creates @cuda_<major>_<minor>.
Selected with --@rules_cuda_stages//cuda_rules:toolkit=<version> (default """ + DEFAULT_TOOLKIT + ").",
    attrs = {
        "version": attr.string(mandatory = True, doc = "CUDA version, e.g. \"13.0\"."),
    },
)

_local_toolkit = tag_class(
    doc = "The locally installed toolkit (@local_cuda), selected with --@rules_cuda_stages//cuda_rules:toolkit=local. Without `path` the search order is CUDA_PATH, CUDA_HOME, nvcc on PATH, /usr/local/cuda.",
    attrs = {
        "path": attr.string(doc = "Toolkit root (the directory holding bin/nvcc)."),
    },
)

def repo_name(version):
    return "cuda_" + version.replace(".", "_")

def _cuda_impl(module_ctx):
    path = ""
    versions = [DEFAULT_TOOLKIT]
    for mod in module_ctx.modules:
        for tag in mod.tags.local_toolkit:
            if mod.is_root or not path:
                path = tag.path or path
        for tag in mod.tags.toolkit:
            if tag.version not in CUDA_VERSIONS:
                _, error = select_wheels(CUDA_VERSIONS, tag.version, "x86_64")
                fail("{} (in cuda.toolkit() of module {})".format(error, mod.name))
            if tag.version not in versions:
                versions.append(tag.version)
    local_toolkit_repository(name = "local_cuda", path = path)
    toolkits = {"local": "local_cuda"}
    for version in versions:
        wheel_toolkit_repository(name = repo_name(version), version = version)
        toolkits[version] = repo_name(version)
    cuda_toolchains_hub(name = "cuda_toolchains", toolkits = toolkits)

cuda = module_extension(
    implementation = _cuda_impl,
    tag_classes = {
        "local_toolkit": _local_toolkit,
        "toolkit": _toolkit,
    },
    environ = ["CUDA_PATH", "CUDA_HOME", "PATH"],
)
