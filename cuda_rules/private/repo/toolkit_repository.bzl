"""Repository rules of the CUDA toolkits: the hermetic ones (NVIDIA's PyPI wheels, Debian's
packages, NVIDIA's redistributable archives), the locally installed one, and the hub that
registers a toolchain for each.

Every tool, header and library of a toolkit becomes a file of its repository,
so actions name them as labels and see them at execroot-relative paths
(external/<repo>/...), never at an install location.
"""

load("//cuda_rules/private/repo:components.bzl", "CUDA_COMPONENTS")
load("//cuda_rules/private/repo:cuda_debs.bzl", "CUDA_DEBS")
load("//cuda_rules/private/repo:cuda_libraries.bzl", "CUDA_LIBRARY_VERSIONS")
load("//cuda_rules/private/repo:cuda_versions.bzl", "CUDA_VERSIONS")
load(
    "//cuda_rules/private/repo:library_repository.bzl",
    "component_targets",
    "download_archives",
    "find_shared_libraries",
    "hub_targets",
)
load("//cuda_rules/private/repo:platforms.bzl", "PLATFORMS", "constraints", "describe", _host_platform = "host_platform")
load("//cuda_rules/private/repo:redist.bzl", "read_manifest", "toolkit_archives")
load("//cuda_rules/private/repo:rules_cuda_names.bzl", "component_group_names", "toolkit_compat_targets")

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
            # cudaProfiler.h declares the driver's cuProfilerStart/Stop (libcuda.so.1 has them).
            "stub": ["cuda.h", "cudaProfiler.h", "libcuda.so.1"],
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

def _runtime_imports(rctx, lib_dirs, where):
    """The runtime's imports: the static library, and the static and shared ones as one library."""
    static = [d + "/libcudart_static.a" for d in lib_dirs if rctx.path(d + "/libcudart_static.a").exists]
    if not static:
        fail("rules_cuda_stages: {} has no libcudart_static.a in {}: it is no complete CUDA toolkit.".format(where, ", ".join(lib_dirs)))
    shared, _ = find_shared_libraries(rctx, lib_dirs, ["libcudart.so"])
    return """
# The runtime's libraries (BUILD.toolkit.tpl: cudart_static, cudart).
cc_import(
    name = "cudart_static_lib",
    static_library = "{static}",
)

cc_import(
    name = "cudart_import",
    static_library = "{static}",{shared}
)
""".format(
        static = static[0],
        shared = "\n    shared_library = \"{}\",".format(shared[0]) if shared else "",
    )

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
    out = [_runtime_imports(rctx, lib_dirs, where), text, toolkit_compat_targets(rctx, where, lib_dirs)]
    for key in sorted(CUDA_COMPONENTS.keys()):
        spec = CUDA_COMPONENTS[key]
        if local:
            text, _ = component_targets(rctx, key, spec, lib_dirs, where, strict = False, headers_dep = "\":headers\"", groups = "toolkit")
        elif spec["toolkit"] != "yes":
            continue
        elif key in components:
            text, _ = component_targets(rctx, key, spec, lib_dirs, where, strict = True, toolkit_headers = "\":headers\"", groups = "toolkit")
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
            ))) for name in sorted(spec["targets"].keys()) + component_group_names(key)])
        out.append(text)
    return "".join(out)

def _local_toolkit_repository_impl(rctx):
    toolkit = find_local_toolkit(rctx)
    if toolkit == None:
        # Not an error here: the repository is only used when a build selects
        # --@rules_cuda_stages//cuda_rules:toolkit=local, and then its toolchain
        # fails analysis with this message.
        searched = "\n".join(["  - {}: {}".format(o, p) for o, p in _candidates(rctx)])
        selected = ""
        if rctx.attr.selected_by:
            selected = " (the default, from rules_cuda's {}, which means the installed toolkit)".format(rctx.attr.selected_by)
        message = ("rules_cuda_stages: --@rules_cuda_stages//cuda_rules:toolkit=local{}, but no CUDA toolkit " +
                   "was found on this machine. Searched (a directory with bin/nvcc and bin/nvcc.profile):\n{}\n" +
                   "Fix: install the CUDA toolkit or set CUDA_PATH (e.g. --repo_env=CUDA_PATH=/opt/cuda), " +
                   "or use a hermetic toolkit: --@rules_cuda_stages//cuda_rules:toolkit=13.0{}").format(
            selected,
            searched,
            " (or drop that tag from MODULE.bazel, which makes 13.0 the default)" if selected else "",
        )
        rctx.file("version.bzl", "CUDA_VERSION = None\n")
        rctx.file("BUILD.bazel", """\
# Generated by rules_cuda_stages: no local CUDA toolkit was found.
load("@rules_cuda_stages//cuda_rules:toolchain.bzl", "missing_cuda_toolchain")
load("@rules_cuda_stages//cuda_rules/private/repo:generated.bzl", "cuda_bool_setting", "cuda_missing_component")

package(default_visibility = ["//visibility:public"])

# rules_cuda's setting: no toolkit here, so False (projects that select on it build without CUDA).
cuda_bool_setting(
    name = "valid_toolchain_found",
    build_setting_default = False,
)

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
""".format(message = repr(message), targets = repr([t for t in hub_targets() if t != "valid_toolchain_found"])))
        return
    for entry in _TOOLKIT_ENTRIES:
        child = toolkit.get_child(entry)
        if child.exists:
            rctx.symlink(child, entry)
    version = _version_of(rctx, toolkit.get_child("bin").get_child("nvcc"))
    rctx.file("version.bzl", "CUDA_VERSION = {}\n".format(repr(version)))
    where = "the local CUDA {} toolkit at {}".format(version, toolkit)
    rctx.template("BUILD.bazel", rctx.attr._build_tpl, dict({
        "%{version}": version,
        "%{origin}": "the local toolkit at " + str(toolkit),
        "%{cccl_include}": _cccl_include(rctx),
        "%{generated}": toolkit_generated(rctx, where, [d for d in _LOCAL_LIB_DIRS if rctx.path(d).exists], local = True, components = []),
        "%{supported_archs}": repr(nvcc_supported_archs(rctx, True)),
    }, **_host_compiler_substitutions(rctx, True)))

local_toolkit_repository = repository_rule(
    implementation = _local_toolkit_repository_impl,
    doc = "Wraps the locally installed CUDA toolkit (CUDA_PATH, CUDA_HOME, nvcc on PATH, /usr/local/cuda).",
    attrs = {
        "path": attr.string(doc = "Explicit toolkit root; searched before the environment."),
        "selected_by": attr.string(doc = "The rules_cuda tag that made `local` the default toolkit, for messages; empty if none."),
        "_build_tpl": attr.label(default = "//cuda_rules/private/repo:BUILD.toolkit.tpl"),
    },
    environ = ["CUDA_PATH", "CUDA_HOME", "PATH"],
    local = True,
)

host_platform = _host_platform

def host_compiler_limits(rctx):
    """The newest gcc and clang majors the toolkit in this repository accepts, from its crt/host_config.h.

    Args:
      rctx: the repository_ctx.

    Returns:
      {"gcc": 13, "clang": 17}, without the ones it does not say.
    """
    for path in ["include/crt/host_config.h", "targets/x86_64-linux/include/crt/host_config.h", "targets/sbsa-linux/include/crt/host_config.h"]:
        if rctx.path(path).exists:
            return host_config_limits(rctx.read(path))
    return {}

def host_config_limits(text):
    """host_compiler_limits of the text of a crt/host_config.h.

    Args:
      text: the header's text.

    Returns:
      {"gcc": 13, "clang": 17}, without the ones it does not say.
    """
    limits = {}

    # `#if __GNUC__ > 13`: gcc 13 and older.
    i = text.find("#if __GNUC__ > ")
    if i >= 0:
        digits = text[i + len("#if __GNUC__ > "):].split("\n", 1)[0].strip()
        if digits.isdigit():
            limits["gcc"] = int(digits)

    # `#if (__clang_major__ >= 18) || (__clang_major__ < 3) ...`: clang 17 and older.
    marker = "#if (__clang_major__ >= "
    i = text.find(marker)
    if i >= 0:
        digits = text[i + len(marker):].split(")", 1)[0].strip()
        if digits.isdigit():
            limits["clang"] = int(digits) - 1
    return limits

def allowed_gpu_codes(help_text):
    """The values `nvcc --help` allows for --gpu-code (compute_NN, sm_NN, lto_NN, a/f variants), sorted.

    tools/nvcc_plan/nvcc_options.py's parse_help reads the same text the same
    way (//tests/toolkit:supported_archs_test compares the two).

    Args:
      help_text: the output of `nvcc --help`.

    Returns:
      A list of strings; empty if the text has no such list.
    """
    out = []
    in_gpu_code = False
    in_values = False
    for line in help_text.splitlines():
        if line.startswith("--"):
            in_gpu_code = line.split(" ")[0] == "--gpu-code"
            in_values = False
            continue
        if not in_gpu_code:
            continue
        marker = "Allowed values for this option:"
        if marker in line:
            in_values = True
            line = line[line.find(marker) + len(marker):]
        elif not in_values or not line.strip().startswith("'"):
            in_values = False
            continue
        for part in line.split("'")[1::2]:
            kind, _, number = part.partition("_")
            digits = number.rstrip("af")
            if kind in ("sm", "compute", "lto") and digits.isdigit() and len(number) - len(digits) <= 1:
                out.append(part)
    return sorted({a: True for a in out}.keys())

def nvcc_supported_archs(rctx, runnable):
    """The archs the repository's bin/nvcc builds, from its own `nvcc --help`; [] when it cannot run here.

    Args:
      rctx: the repository_ctx of a toolkit repository (bin/nvcc at its root).
      runnable: whether this machine can run the toolkit's programs (its platform is the host's).

    Returns:
      A list of strings.
    """
    nvcc = rctx.path("bin/nvcc")
    if not runnable or not nvcc.exists:
        return []
    result = rctx.execute([nvcc, "--help"], timeout = 60)
    if result.return_code != 0:
        return []
    return allowed_gpu_codes(result.stdout)

def _host_compiler_substitutions(rctx, check):
    limits = host_compiler_limits(rctx)
    return {
        "%{max_gcc}": str(limits.get("gcc", 0)),
        "%{max_clang}": str(limits.get("clang", 0)),
        "%{host_compiler_check}": "True" if check else "False",
    }

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
        return None, unknown_version_error(version)
    wheels = versions[version]["wheels"].get(platform)
    if not wheels:
        return None, ("rules_cuda_stages: CUDA {v} has no wheels for {p} on PyPI (it has: {have}). " +
                      "Fix: use another CUDA version, or the local toolkit (--@rules_cuda_stages//cuda_rules:toolkit=local).").format(
            v = version,
            p = platform,
            have = ", ".join(sorted(versions[version]["wheels"].keys())) or "none",
        )
    return wheels, None

def known_versions():
    """The CUDA versions the tables offer: {version: source ("wheels" or "debs")}."""
    out = {v: "debs" for v in CUDA_DEBS.keys()}
    out.update({v: "wheels" for v in CUDA_VERSIONS.keys()})
    return out

def unknown_version_error(version):
    return ("rules_cuda_stages: unknown CUDA version '{v}'; this rules_cuda_stages knows {known} " +
            "(NVIDIA's PyPI wheels: {wheels}; Debian's packages: {debs}). Fix: pick one of those, " +
            "declare NVIDIA's redistributable release with cuda.redist(version = \"{v}.<patch>\") " +
            "(docs/toolkits.md), or add it to the wheels table with " +
            "`python3 tools/cuda_wheels/lock.py --add {v}`.").format(
        v = version,
        known = ", ".join(sorted(known_versions().keys())),
        wheels = ", ".join(sorted(CUDA_VERSIONS.keys())) or "none",
        debs = ", ".join(sorted(CUDA_DEBS.keys())) or "none",
    )

def toolkit_platforms(source, version):
    """The platforms a toolkit source has `version` for.

    Args:
      source: "wheels", "debs" or "redist".
      version: e.g. "12.4".

    Returns:
      Sorted platform names; for redistrib manifests every platform of PLATFORMS (NVIDIA builds
      each; a manifest that lacks one fails when that platform's repository is fetched).
    """
    if source == "wheels":
        return sorted(CUDA_VERSIONS[version]["wheels"].keys())
    if source == "debs":
        return sorted(CUDA_DEBS[version]["debs"].keys())
    return sorted(PLATFORMS.keys())

def _complete_layout(rctx):
    """Adds the two places the device linker looks in that the wheels leave out.

    nvcc.profile passes -L$(TOP)/lib64 to nvlink (for -lcudadevrt), and nvlink
    -dlto loads $(TOP)/nvvm/lib64/libnvvm.so; the wheels and Debian's layout put
    the static libraries in lib/, the wheels libNVVM too.
    """
    lib = rctx.path("lib")
    if not lib.exists:
        return
    for child in lib.readdir():
        if child.basename.endswith(".a") and not rctx.path("lib64/" + child.basename).exists:
            rctx.symlink(child, "lib64/" + child.basename)
        elif child.basename.startswith("libnvvm.so") and not rctx.path("nvvm/lib64/libnvvm.so").exists:
            rctx.symlink(child, "nvvm/lib64/libnvvm.so")

# NVIDIA's installer's nvcc.profile (CUDA 12), for Debian's nvcc: Debian's own
# (/etc/nvcc.profile) names /usr paths. Everything is relative to nvcc's
# directory, so the commands nvcc plans stay inside the repository.
_NVCC_PROFILE = """
TOP              = $(_HERE_)/..

NVVMIR_LIBRARY_DIR = $(TOP)/$(_NVVM_BRANCH_)/libdevice

LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(TOP)/$(_NVVM_BRANCH_)/bin:$(_HERE_):

INCLUDES        +=  "-I$(TOP)/$(_TARGET_DIR_)/include" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)/stubs" "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
"""

def _in_toolkit_archives(version, platform):
    """The small components a local toolkit has under include/ (NVTX, the profiler API, NVML's header, ...)."""
    out = []
    libraries = CUDA_LIBRARY_VERSIONS.get(version, {}).get("components", {})
    for key in sorted(CUDA_COMPONENTS.keys()):
        if CUDA_COMPONENTS[key]["toolkit"] != "yes" or platform not in libraries.get(key, {}).get("archives", {}):
            continue
        entry = libraries[key]
        out.append(struct(key = key, what = "CUDA {} {} ({} {})".format(version, key, entry["package"], entry["version"]), archives = entry["archives"][platform]))
    return out

def _fetch_wheels(rctx, version, platform):
    wheels, error = select_wheels(CUDA_VERSIONS, version, platform)
    if error:
        fail(error)
    prefix = "nvidia/cu" + version.split(".")[0]
    regenerate = "python3 tools/cuda_wheels/lock.py " + version
    download_archives(rctx, [dict(w, strip_prefix = prefix, type = "zip") for w in wheels], "CUDA " + version, regenerate)
    components = []
    for extra in _in_toolkit_archives(version, platform):
        download_archives(rctx, extra.archives, extra.what, regenerate)
        components.append(extra.key)
    return "NVIDIA's PyPI wheels " + ", ".join(["{} {}".format(w["package"], w["version"]) for w in wheels]), components

def _fetch_debs(rctx, version, platform):
    entry = CUDA_DEBS.get(version)
    if not entry:
        fail(unknown_version_error(version))
    debs = entry["debs"].get(platform)
    if not debs:
        fail(("rules_cuda_stages: CUDA {v} has no Debian packages for {p} in the table (it has: {have}). " +
              "Fix: use another CUDA version, or the local toolkit (--@rules_cuda_stages//cuda_rules:toolkit=local).").format(
            v = version,
            p = platform,
            have = ", ".join(sorted(entry["debs"].keys())) or "none",
        ))
    download_archives(rctx, debs, "CUDA {} (Debian {})".format(version, entry["suite"]), "python3 tools/cuda_debs/lock.py " + version)
    rctx.file("bin/nvcc.profile", _NVCC_PROFILE)
    return "Debian {}'s packages of {} (nvcc {})".format(entry["suite"], entry["source"], entry["nvcc_version"]), entry["components"]

def in_toolkit_redist_components():
    """{redist component: components.bzl key} of the small components unpacked into a redist toolkit."""
    return {
        spec["redist"]: key
        for key, spec in CUDA_COMPONENTS.items()
        if spec["toolkit"] == "yes" and spec.get("redist")
    }

def _fetch_redist(rctx, version, platform):
    attr = rctx.attr
    manifest, where = read_manifest(rctx, attr.release, attr.manifest_urls, attr.manifest_file, attr.manifest_sha256)
    extra = in_toolkit_redist_components()
    archives, have, error = toolkit_archives(manifest, PLATFORMS[platform].redist, attr.mirrors, where, extra = sorted(extra.keys()))
    if error:
        fail("rules_cuda_stages: CUDA {} ({}): {}. Fix: use another release or platform, or check the manifest.".format(version, where, error))
    download_archives(rctx, archives, "CUDA {} ({})".format(version, where), where)
    origin = "NVIDIA's redistributable archives ({}): {}".format(where, ", ".join(["{} {}".format(a["package"], a["version"]) for a in archives]))
    return origin, [extra[c] for c in have if c in extra]

def _hermetic_toolkit_repository_impl(rctx):
    version = rctx.attr.version
    platform = rctx.attr.platform or host_platform(rctx)
    if rctx.attr.source == "wheels":
        origin, components = _fetch_wheels(rctx, version, platform)
    elif rctx.attr.source == "debs":
        origin, components = _fetch_debs(rctx, version, platform)
    else:
        origin, components = _fetch_redist(rctx, version, platform)
    _complete_layout(rctx)
    rctx.file("version.bzl", "CUDA_VERSION = {}\n".format(repr(version)))
    rctx.template("BUILD.bazel", rctx.attr._build_tpl, dict({
        "%{version}": version,
        "%{origin}": origin + " for " + describe(platform),
        "%{cccl_include}": _cccl_include(rctx),
        "%{generated}": toolkit_generated(rctx, "the hermetic CUDA {} toolkit for {}".format(version, describe(platform)), ["lib"], local = False, components = components),
        "%{supported_archs}": repr(nvcc_supported_archs(rctx, platform == host_platform(rctx))),
    }, **_host_compiler_substitutions(rctx, rctx.attr.host_compiler_check)))

hermetic_toolkit_repository = repository_rule(
    implementation = _hermetic_toolkit_repository_impl,
    doc = "A CUDA toolkit for one platform, from NVIDIA's PyPI wheels (cuda_versions.bzl), Debian's packages (cuda_debs.bzl) or NVIDIA's redistrib manifest.",
    attrs = {
        "host_compiler_check": attr.bool(default = True, doc = "Whether the toolchain rejects, at analysis, a C++ toolchain's gcc newer than the toolkit accepts."),
        "manifest_file": attr.label(allow_single_file = True, doc = "redist: the manifest as a file of a repository."),
        "manifest_sha256": attr.string(doc = "redist: the manifest's sha256 (recommended)."),
        "manifest_urls": attr.string_list(doc = "redist: where the manifest is (mirrors of one file)."),
        "mirrors": attr.string_list(doc = "redist: base URLs, each holding the manifest's relative paths."),
        "platform": attr.string(doc = "x86_64 or aarch64; default: the host's."),
        "release": attr.string(doc = "redist: NVIDIA's release, e.g. \"12.6.3\"."),
        "source": attr.string(mandatory = True, values = ["wheels", "debs", "redist"], doc = "Where the toolkit comes from."),
        "version": attr.string(mandatory = True, doc = "CUDA version MAJOR.MINOR (what --@rules_cuda_stages//cuda_rules:toolkit names)."),
        "_build_tpl": attr.label(default = "//cuda_rules/private/repo:BUILD.toolkit.tpl"),
    },
)

def _toolchains_hub_impl(rctx):
    toolkits = json.decode(rctx.attr.toolkits)
    lines = [
        "# Generated by rules_cuda_stages: one CUDA toolchain per toolkit and platform, chosen by",
        "# --@rules_cuda_stages//cuda_rules:toolkit and by Bazel's toolchain resolution: a toolkit",
        "# runs on its platform (exec_compatible_with) and its libraries are that platform's",
        "# (target_compatible_with). Only the selected toolkit's repository is fetched.",
        "",
        "# For bzl_library targets of the files that load it (//cuda_rules/private:toolchain).",
        "exports_files([\"toolkits.bzl\"])",
        "",
    ]
    for name in sorted(toolkits.keys()):
        for platform, repo in sorted(toolkits[name].items()):
            lines.append("""toolchain(
    name = "{name}_{platform}",
    exec_compatible_with = {constraints},
    target_compatible_with = {constraints},
    target_settings = ["@rules_cuda_stages//cuda_rules:toolkit_{name}"],
    toolchain = "@{repo}//:cuda_toolchain",
    toolchain_type = "@rules_cuda_stages//cuda_rules:toolchain_type",
)
""".format(name = name, platform = platform, repo = repo, constraints = repr(constraints(platform))))
    rctx.file("BUILD.bazel", "\n".join(lines))
    rctx.file("toolkits.bzl", """\
\"\"\"Generated by rules_cuda_stages' `cuda` module extension: the toolkits it created.\"\"\"

# Values of --@rules_cuda_stages//cuda_rules:toolkit.
TOOLKIT_NAMES = {names}

# Its default: "local" when the root module has rules_cuda's cuda.local_toolchain or
# cuda.toolkit(name = ...) tag (the installed toolkit), else the rules' default.
DEFAULT_TOOLKIT_NAME = {default}

# {{toolkit: {{platform: repository}}}}, for messages.
TOOLKITS = {toolkits}
""".format(
        names = repr(sorted(toolkits.keys())),
        default = repr(rctx.attr.default),
        toolkits = repr({k: toolkits[k] for k in sorted(toolkits.keys())}),
    ))

cuda_toolchains_hub = repository_rule(
    implementation = _toolchains_hub_impl,
    doc = "Declares the toolchain() of every CUDA toolkit and platform without fetching the toolkits, and toolkits.bzl (their names).",
    attrs = {
        "default": attr.string(mandatory = True, doc = "The default of --@rules_cuda_stages//cuda_rules:toolkit."),
        "toolkits": attr.string(doc = "JSON: {toolkit name (e.g. 13.0, local): {platform: repository name}}"),
    },
)
