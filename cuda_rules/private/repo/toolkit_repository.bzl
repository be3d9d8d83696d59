"""Repository rule wrapping a locally installed CUDA toolkit.

Every tool, header and library of the toolkit becomes a file of this
repository, so actions name them as labels and see them at execroot-relative
paths (external/<repo>/...), never at the toolkit's install location.
"""

load("//cuda_rules/private/repo:components.bzl", "CUDA_COMPONENTS")
load("//cuda_rules/private/repo:cuda_libraries.bzl", "CUDA_LIBRARY_VERSIONS")
load("//cuda_rules/private/repo:cuda_versions.bzl", "CUDA_VERSIONS")
load(
    "//cuda_rules/private/repo:library_repository.bzl",
    "component_targets",
    "download_archives",
    "hub_targets",
    _host_platform = "host_platform",
)

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

# Where local toolkits keep libraries (NVIDIA's installers: lib64 and
# targets/<arch>/lib; toolkits assembled from wheels: lib).
_LOCAL_LIB_DIRS = ["lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"]

# What the toolkit repository adds besides the compiler: the driver API with its
# link stub, and the shared runtime.
_TOOLKIT_SPEC = {
    "doc": "part of the CUDA runtime",
    "targets": {
        "cuda": {
            "doc": "the driver API: the toolkit's headers and a link stub of libcuda.so.1 (the driver's library is used at run time)",
            "stub": ["cuda.h", "libcuda.so.1"],
        },
        "cuda_runtime_shared": {
            "doc": "the CUDA runtime as a shared library, shipped in runfiles",
            "shared": ["libcudart.so"],
        },
    },
}

def _cccl_include(rctx):
    """Where CCCL's headers are: include/cccl from CUDA 13 on, include before."""
    return "include/cccl" if rctx.path("include/cccl").exists else "include"

def toolkit_generated(rctx, where, lib_dirs, local, components):
    """The BUILD text of the toolkit's generated targets.

    Args:
      rctx: the repository_ctx.
      where: the toolkit's origin, for messages.
      lib_dirs: where its libraries are, relative to the repository root.
      local: True for a local toolkit: it also defines every library target (from its own
        files, or one failing with what is missing), and nothing missing fails the fetch.
      components: the in-toolkit components that were unpacked into it (hermetic toolkits).

    Returns:
      BUILD text.
    """
    text, _ = component_targets(rctx, "cudart", _TOOLKIT_SPEC, lib_dirs, where, strict = not local, headers_dep = "\":headers\"")
    out = [text]
    for key in sorted(CUDA_COMPONENTS.keys()):
        spec = CUDA_COMPONENTS[key]
        if local:
            text, _ = component_targets(rctx, key, spec, lib_dirs, where, strict = False, headers_dep = "\":headers\"")
        elif spec["toolkit"] != "yes":
            continue
        elif key in components:
            text, _ = component_targets(rctx, key, spec, lib_dirs, where, strict = True)
        else:
            text = "".join(["""
cuda_missing_component(
    name = "{name}",
    message = {message},
)
""".format(name = name, message = repr(("rules_cuda_stages: @cuda//:{name} ({doc}) is not available in {where}: " +
                                        "the versions table has no {key} for it. Fix: regenerate the table with " +
                                        "`python3 tools/cuda_wheels/lock.py`, or use another toolkit.").format(
                name = name,
                doc = spec["doc"],
                where = where,
                key = key,
            ))) for name in sorted(spec["targets"].keys())])
        out.append(text)
    return "".join(out)

def _local_toolkit_repository_impl(rctx):
    toolkit = find_local_toolkit(rctx)
    if toolkit == None:
        # Not an error here: the repository is only used when a build selects
        # --@rules_cuda_stages//cuda_rules:toolkit=local, and then its toolchain
        # fails analysis with this message.
        searched = "\n".join(["  - {}: {}".format(o, p) for o, p in _candidates(rctx)])
        message = ("rules_cuda_stages: --@rules_cuda_stages//cuda_rules:toolkit=local, but no CUDA toolkit " +
                   "was found on this machine. Searched (a directory with bin/nvcc and bin/nvcc.profile):\n{}\n" +
                   "Fix: install the CUDA toolkit or set CUDA_PATH (e.g. --repo_env=CUDA_PATH=/opt/cuda), " +
                   "or use a hermetic toolkit: --@rules_cuda_stages//cuda_rules:toolkit=13.0").format(searched)
        rctx.file("version.bzl", "CUDA_VERSION = None\n")
        rctx.file("BUILD.bazel", """\
# Generated by rules_cuda_stages: no local CUDA toolkit was found.
load("@rules_cuda_stages//cuda_rules:toolchain.bzl", "missing_cuda_toolchain")
load("@rules_cuda_stages//cuda_rules/private/repo:generated.bzl", "cuda_missing_component")

package(default_visibility = ["//visibility:public"])

missing_cuda_toolchain(
    name = "cuda_toolchain",
    message = {message},
)

exports_files(["version.bzl"])

filegroup(name = "compiler_files", srcs = [])

filegroup(name = "header_files", srcs = [])

# Every @cuda//:<component> label, for builds that select toolkit=local.
[
    cuda_missing_component(
        name = name,
        message = "@cuda//:" + name + ": " + {message},
    )
    for name in {targets}
]
""".format(message = repr(message), targets = repr(hub_targets())))
        return
    for entry in _TOOLKIT_ENTRIES:
        child = toolkit.get_child(entry)
        if child.exists:
            rctx.symlink(child, entry)
    version = _version_of(rctx, toolkit.get_child("bin").get_child("nvcc"))
    rctx.file("version.bzl", "CUDA_VERSION = {}\n".format(repr(version)))
    where = "the local CUDA {} toolkit at {}".format(version, toolkit)
    rctx.template("BUILD.bazel", rctx.attr._build_tpl, {
        "%{version}": version,
        "%{origin}": "the local toolkit at " + str(toolkit),
        "%{cccl_include}": _cccl_include(rctx),
        "%{generated}": toolkit_generated(rctx, where, [d for d in _LOCAL_LIB_DIRS if rctx.path(d).exists], local = True, components = []),
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

host_platform = _host_platform

def select_wheels(versions, version, platform):
    """Picks the wheels of one CUDA version for one platform.

    Args:
      versions: the CUDA_VERSIONS table.
      version: e.g. "13.0".
      platform: "x86_64" or "aarch64".

    Returns:
      (list of wheel dicts, None), or (None, error message naming the version and the fix).
    """
    if version not in versions:
        return None, ("rules_cuda_stages: unknown CUDA version '{v}'; this rules_cuda_stages knows {known}. " +
                      "Fix: pick one of those, or add it to the versions table with " +
                      "`python3 tools/cuda_wheels/lock.py --add {v}`.").format(
            v = version,
            known = ", ".join(sorted(versions.keys())),
        )
    wheels = versions[version]["wheels"].get(platform)
    if not wheels:
        return None, ("rules_cuda_stages: CUDA {v} has no wheels for {p} on PyPI (it has: {have}). " +
                      "Fix: use another CUDA version, or the local toolkit (--@rules_cuda_stages//cuda_rules:toolkit=local).").format(
            v = version,
            p = platform,
            have = ", ".join(sorted(versions[version]["wheels"].keys())) or "none",
        )
    return wheels, None

def _complete_wheel_layout(rctx):
    """Adds the two places the device linker looks in that the wheels leave out.

    The wheels' nvcc.profile passes -L$(TOP)/lib64 to nvlink (for
    -lcudadevrt), and nvlink -dlto loads $(TOP)/nvvm/lib64/libnvvm.so; the
    wheels put both libraries in lib/.
    """
    lib = rctx.path("lib")
    if not lib.exists:
        return
    for child in lib.readdir():
        if child.basename.endswith(".a"):
            rctx.symlink(child, "lib64/" + child.basename)
        elif child.basename.startswith("libnvvm.so"):
            rctx.symlink(child, "nvvm/lib64/libnvvm.so")

def _wheel_toolkit_repository_impl(rctx):
    version = rctx.attr.version
    platform = rctx.attr.platform or host_platform(rctx)
    wheels, error = select_wheels(CUDA_VERSIONS, version, platform)
    if error:
        fail(error)
    prefix = "nvidia/cu" + version.split(".")[0]
    download_archives(
        rctx,
        [dict(w, strip_prefix = prefix, type = "zip") for w in wheels],
        "CUDA " + version,
        "python3 tools/cuda_wheels/lock.py " + version,
    )

    # The small components a local toolkit has under include/ (NVTX, the
    # profiler API, NVML's header, ...), unpacked into the same tree.
    components = []
    libraries = CUDA_LIBRARY_VERSIONS.get(version, {}).get("components", {})
    for key in sorted(CUDA_COMPONENTS.keys()):
        if CUDA_COMPONENTS[key]["toolkit"] != "yes" or platform not in libraries.get(key, {}).get("archives", {}):
            continue
        entry = libraries[key]
        download_archives(
            rctx,
            entry["archives"][platform],
            "CUDA {} {} ({} {})".format(version, key, entry["package"], entry["version"]),
            "python3 tools/cuda_wheels/lock.py " + version,
        )
        components.append(key)
    _complete_wheel_layout(rctx)
    rctx.file("version.bzl", "CUDA_VERSION = {}\n".format(repr(version)))
    rctx.template("BUILD.bazel", rctx.attr._build_tpl, {
        "%{version}": version,
        "%{origin}": "NVIDIA's PyPI wheels " + ", ".join(["{} {}".format(w["package"], w["version"]) for w in wheels]),
        "%{cccl_include}": _cccl_include(rctx),
        "%{generated}": toolkit_generated(rctx, "the hermetic CUDA {} toolkit".format(version), ["lib"], local = False, components = components),
    })

wheel_toolkit_repository = repository_rule(
    implementation = _wheel_toolkit_repository_impl,
    doc = "A CUDA toolkit assembled from NVIDIA's PyPI wheels, pinned in cuda_versions.bzl.",
    attrs = {
        "version": attr.string(mandatory = True, doc = "CUDA version, a key of CUDA_VERSIONS (e.g. \"13.0\")."),
        "platform": attr.string(doc = "Wheel platform (x86_64, aarch64); default: the host's."),
        "_build_tpl": attr.label(default = "//cuda_rules/private/repo:BUILD.toolkit.tpl"),
    },
)

def _toolchains_hub_impl(rctx):
    lines = [
        "# Generated by rules_cuda_stages: one CUDA toolchain per toolkit, chosen by",
        "# --@rules_cuda_stages//cuda_rules:toolkit. Only the selected toolkit's",
        "# repository is fetched.",
        "",
    ]
    for name, repo in rctx.attr.toolkits.items():
        lines.append("""toolchain(
    name = "{name}",
    exec_compatible_with = ["@platforms//os:linux"],
    target_settings = ["@rules_cuda_stages//cuda_rules:toolkit_{name}"],
    toolchain = "@{repo}//:cuda_toolchain",
    toolchain_type = "@rules_cuda_stages//cuda_rules:toolchain_type",
)
""".format(name = name, repo = repo))
    rctx.file("BUILD.bazel", "\n".join(lines))

cuda_toolchains_hub = repository_rule(
    implementation = _toolchains_hub_impl,
    doc = "Declares the toolchain() of every CUDA toolkit without fetching the toolkits.",
    attrs = {"toolkits": attr.string_dict(doc = "toolkit name (e.g. 13.0, local) -> repository name")},
)
