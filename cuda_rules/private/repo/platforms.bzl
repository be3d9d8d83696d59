"""The platforms hermetic CUDA toolkits exist for, and how each source names them."""

visibility(["//cuda_rules/...", "//tests/..."])

# Linux platforms a toolkit repository can be made for. A toolkit runs on its
# platform (exec) and its libraries are that platform's (target): one
# repository per (version, platform), each registered for exactly that pair.
PLATFORMS = {
    "aarch64": struct(
        cpu = "@platforms//cpu:aarch64",
        # NVIDIA calls 64-bit Arm servers (Grace, Graviton, ...) "sbsa".
        redist = "linux-sbsa",
        describe = "Linux aarch64 (sbsa)",
    ),
    "x86_64": struct(
        cpu = "@platforms//cpu:x86_64",
        redist = "linux-x86_64",
        describe = "Linux x86-64",
    ),
}

OS_CONSTRAINT = "@platforms//os:linux"

def host_platform(rctx):
    """The platform of the machine Bazel runs on ("x86_64" or "aarch64"; another CPU as Bazel names it)."""
    arch = rctx.os.arch
    return {"amd64": "x86_64", "x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(arch, arch)

def constraints(platform):
    """exec_compatible_with / target_compatible_with of a toolkit for `platform`."""
    return [OS_CONSTRAINT, PLATFORMS[platform].cpu] if platform in PLATFORMS else [OS_CONSTRAINT, "@platforms//cpu:" + platform]

def describe(platform):
    return PLATFORMS[platform].describe if platform in PLATFORMS else "Linux " + platform
