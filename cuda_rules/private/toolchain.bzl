"""The cuda_toolchain rule and the toolchain type."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@cuda_host_compiler_id//:defs.bzl", HOST_COMPILER_ID_OF = "COMPILER")
load("@cuda_toolchains//:toolkits.bzl", "TOOLKITS")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load(":providers.bzl", "CudaToolchainInfo")

visibility(["//cuda_rules/...", "//tests/..."])

CUDA_TOOLCHAIN_TYPE = "@rules_cuda_stages//cuda_rules:toolchain_type"

# Optional, so that a target platform no toolkit builds for gets
# find_cuda_toolchain's message (naming the platform and the toolkits there
# are) instead of Bazel's "No matching toolchains found". It also makes Bazel
# prefer, among execution platforms, one where a CUDA toolkit runs (it picks
# the platform with the most resolved toolchains).
CUDA_TOOLCHAINS = [config_common.toolchain_type(CUDA_TOOLCHAIN_TYPE, mandatory = False)]

def _files(target):
    return target[DefaultInfo].files

def host_gcc_major(cc_toolchain):
    """The major version of a C++ toolchain's gcc, from its built-in include directories.

    gcc's own headers are in <prefix>/lib/gcc/<triplet>/<version>/include (and
    include-fixed), a path every gcc installation and Bazel's autoconfigured
    toolchain lists; clang's are in .../clang/<version>/include.

    Args:
      cc_toolchain: a CcToolchainInfo, or None.

    Returns:
      The major version, or 0 if the compiler is not gcc or its version is unknown.
    """
    if cc_toolchain == None or cc_toolchain.compiler not in ("gcc", "compiler", ""):
        return 0
    majors = []
    for d in cc_toolchain.built_in_include_directories:
        parts = d.rstrip("/").split("/")
        if "clang" in parts:
            return 0
        for i in range(len(parts) - 3):
            if parts[i] == "gcc" and parts[i + 3] in ("include", "include-fixed"):
                major = parts[i + 2].split(".")[0]
                if major.isdigit():
                    majors.append(int(major))
    return majors[0] if majors and all([m == majors[0] for m in majors]) else 0

def toolkit_version(version):
    """A toolkit version as a tuple to compare: "13.0" -> (13, 0) (a missing minor is 0).

    Args:
      version: e.g. CudaToolchainInfo.version, "12.4".

    Returns:
      (major, minor), or None when the version is not numeric.
    """
    major, _, rest = version.partition(".")
    minor = rest.partition(".")[0] or "0"
    if not major.isdigit() or not minor.isdigit():
        return None
    return (int(major), int(minor))

def host_clang_major(cc_toolchain):
    """The major version of a C++ toolchain's clang, from its resource directory, or 0.

    Every clang's built-in include directories hold <prefix>/lib/clang/<major>/include
    (Bazel's C++ autoconfiguration and toolchains_llvm list it).

    Args:
      cc_toolchain: a CcToolchainInfo, or None.

    Returns:
      The major version, or 0 if the compiler is not clang or its version is unknown.
    """
    if cc_toolchain == None:
        return 0
    for d in cc_toolchain.built_in_include_directories:
        parts = d.rstrip("/").split("/")
        if len(parts) >= 4 and parts[-1] == "include" and parts[-3] == "clang" and parts[-4] in ("lib", "lib64"):
            major = parts[-2].split(".")[0]
            if major.isdigit():
                return int(major)
    return 0

def host_compiler_error(label, version, compiler, max_version, found, path):
    """The message for a host compiler newer than the toolkit accepts, or None.

    Args:
      label: the toolkit repository, e.g. @cuda_12_4_x86_64.
      version: the toolkit's version.
      compiler: "gcc" or "clang".
      max_version: the newest major of that compiler the toolkit accepts; 0: unknown.
      found: the C++ toolchain's major of that compiler; 0: not that compiler, or unknown.
      path: the C++ toolchain's compiler executable.

    Returns:
      A string, or None.
    """
    if not max_version or not found or found <= max_version:
        return None
    return ("rules_cuda_stages: CUDA {version} ({label}) accepts {c} {max} and older as nvcc's host compiler " +
            "(its crt/host_config.h), but the C++ toolchain's compiler is {c} {found} ({path}). " +
            "Fix: build with the hermetic gcc 10 (--@rules_cuda_stages//cuda_rules:host_toolchain=gcc10), " +
            "point Bazel's C++ toolchain at {c} {max} or older (e.g. --repo_env=CC={c}-{max}, or " +
            "register a C++ toolchain for it), or use a CUDA toolkit that accepts {c} {found} " +
            "(--@rules_cuda_stages//cuda_rules:toolkit=...; docs/toolkits.md lists each version's limit). " +
            "{clang_mode}" +
            "To compile anyway with nvcc's -allow-unsupported-compiler, set " +
            "cuda.toolkit(version = \"{version}\", host_compiler_check = False) in MODULE.bazel.").format(
        # A clang too new for nvcc may compile the CUDA itself (the hermetic clang22 is for that).
        clang_mode = ("Or let clang compile the CUDA itself: --@rules_cuda_stages//cuda_rules:compiler=clang " +
                      "(docs/cuda_library.md, \"clang as the CUDA compiler\", lists its clang x CUDA pairs). ") if compiler == "clang" else "",
        version = version,
        label = label,
        c = compiler,
        max = max_version,
        found = found,
        path = path,
    )

def _cuda_toolchain_impl(ctx):
    if ctx.attr.host_compiler_check:
        cc_toolchain = ctx.attr._cc_toolchain[cc_common.CcToolchainInfo] if cc_common.CcToolchainInfo in ctx.attr._cc_toolchain else None
        path = cc_toolchain.compiler_executable if cc_toolchain else ""
        label = str(ctx.label).split("//")[0]
        error = host_compiler_error(label, ctx.attr.version, "gcc", ctx.attr.max_gcc, host_gcc_major(cc_toolchain), path)

        # clang is nvcc's host compiler only with compiler=nvcc; in clang mode it
        # compiles CUDA itself, and compile/clang.bzl checks the pair.
        if not error and ctx.attr._compiler[BuildSettingInfo].value == "nvcc":
            error = host_compiler_error(label, ctx.attr.version, "clang", ctx.attr.max_clang, host_clang_major(cc_toolchain), path)
        if error:
            fail(error)
    nvcc = ctx.file.nvcc
    cuda = CudaToolchainInfo(
        version = ctx.attr.version,
        supported_archs = ctx.attr.supported_archs,
        nvcc = nvcc,
        nvcc_files = depset([nvcc], transitive = [_files(ctx.attr.nvcc_files)]),
        cudafe = ctx.file.cudafe,
        cicc = ctx.file.cicc,
        cicc_files = depset([ctx.file.cicc], transitive = [_files(ctx.attr.cicc_files)]),
        ptxas = ctx.file.ptxas,
        fatbinary = ctx.file.fatbinary,
        nvlink = ctx.file.nvlink,
        device_link_files = _files(ctx.attr.device_link_files) if ctx.attr.device_link_files else depset(),
        fatbin_header = _files(ctx.attr.fatbin_header) if ctx.attr.fatbin_header else ctx.attr.headers[DefaultInfo].files,
        host_compile_headers = _files(ctx.attr.host_compile_headers) if ctx.attr.host_compile_headers else ctx.attr.headers[DefaultInfo].files,
        lto_files = _files(ctx.attr.lto_files) if ctx.attr.lto_files else depset(),
        cudadevrt = ctx.attr.cudadevrt[CcInfo] if ctx.attr.cudadevrt else None,
        headers = _files(ctx.attr.headers),
        compiler_files = _files(ctx.attr.compiler_files),
        toolkit_root = nvcc.dirname.rpartition("/")[0],
        runtime = ctx.attr.runtime[CcInfo],
        host_compiler_id = struct(file = ctx.file._host_compiler_id, compiler = HOST_COMPILER_ID_OF),
    )
    return [platform_common.ToolchainInfo(cuda = cuda)]

cuda_toolchain = rule(
    implementation = _cuda_toolchain_impl,
    doc = "Describes one CUDA toolkit. Created by the `cuda` module extension for each toolkit repository.",
    attrs = {
        "version": attr.string(mandatory = True, doc = "Toolkit version, e.g. 13.0."),
        "nvcc": attr.label(mandatory = True, allow_single_file = True, executable = True, cfg = "exec"),
        "nvcc_files": attr.label(mandatory = True, cfg = "exec", doc = "Files nvcc reads to plan (nvcc.profile)."),
        "cudafe": attr.label(mandatory = True, allow_single_file = True, executable = True, cfg = "exec"),
        "cicc": attr.label(mandatory = True, allow_single_file = True, executable = True, cfg = "exec"),
        "cicc_files": attr.label(mandatory = True, cfg = "exec", doc = "libdevice and anything else cicc reads."),
        "ptxas": attr.label(mandatory = True, allow_single_file = True, executable = True, cfg = "exec"),
        "fatbinary": attr.label(mandatory = True, allow_single_file = True, executable = True, cfg = "exec"),
        "nvlink": attr.label(allow_single_file = True, executable = True, cfg = "exec"),
        "device_link_files": attr.label(cfg = "exec", doc = "What device linking reads: nvlink, fatbinary, crt/link.stub, libcudadevrt.a."),
        "fatbin_header": attr.label(doc = "include/fatbinary_section.h (what the compile of fatbinary's C output includes); default: all headers."),
        "host_compile_headers": attr.label(doc = "What the host compile of cudafe++'s output reads: the closure of crt/host_runtime.h (include/*.h, include/crt/); default: all headers."),
        "lto_files": attr.label(cfg = "exec", doc = "What nvlink -dlto loads: nvvm/lib64 (libNVVM) and libdevice."),
        "cudadevrt": attr.label(providers = [CcInfo], doc = "The device runtime library (cc_library), linked with device-linked code."),
        "headers": attr.label(mandatory = True, doc = "The toolkit's include tree (filegroup)."),
        "compiler_files": attr.label(mandatory = True, cfg = "exec", doc = "Everything nvcc runs or reads."),
        "runtime": attr.label(mandatory = True, providers = [CcInfo], doc = "The CUDA runtime library (cc_library)."),
        "supported_archs": attr.string_list(doc = "The archs the toolkit's nvcc builds (its `nvcc --help`: the values of --gpu-code); empty: unknown."),
        "max_gcc": attr.int(doc = "The newest gcc major the toolkit accepts as host compiler (crt/host_config.h); 0: unknown."),
        "max_clang": attr.int(doc = "The newest clang major the toolkit's nvcc accepts as host compiler (crt/host_config.h); 0: unknown."),
        "host_compiler_check": attr.bool(default = True, doc = "Fail analysis when the C++ toolchain's gcc (or clang, as nvcc's host compiler) is newer than max_gcc (max_clang)."),
        "_cc_toolchain": attr.label(
            default = "@rules_cc//cc:optional_current_cc_toolchain",
            doc = "The C++ toolchain of the configuration, for the host compiler check.",
        ),
        "_host_compiler_id": attr.label(
            default = "@cuda_host_compiler_id//:id.txt",
            allow_single_file = True,
            doc = "The machine's C++ compiler: path, version, predefined macros (repo/host_compiler_id.bzl).",
        ),
        "_compiler": attr.label(
            default = "//cuda_rules:compiler",
            doc = "nvcc or clang as the CUDA compiler: clang's limit applies to nvcc's host compiler only.",
        ),
    },
    provides = [platform_common.ToolchainInfo],
)

def _describe_toolkits():
    lines = []
    for name in sorted(TOOLKITS.keys()):
        lines.append("  {}: {}".format(name, ", ".join([
            "{} (@{})".format(platform, repo)
            for platform, repo in sorted(TOOLKITS[name].items())
        ])))
    return "\n".join(lines)

def no_toolkit_message(label, target_platform):
    """What a target gets when no CUDA toolkit matches its target platform and the execution platforms."""
    return ("rules_cuda_stages: {label}: no CUDA toolkit for the target platform {platform}: " +
            "the toolkit selected by --@rules_cuda_stages//cuda_rules:toolkit has none that targets it and runs on " +
            "an available execution platform. A toolkit runs on its platform and its libraries are that " +
            "platform's, so it builds for the same CPU it runs on; the toolkits and their platforms " +
            "(Linux CPUs):\n{toolkits}\n" +
            "Fix: build for one of these (--platforms), make an execution platform of that CPU available " +
            "(--extra_execution_platforms, e.g. remote workers), or select another toolkit. " +
            "--toolchain_resolution_debug=@rules_cuda_stages//cuda_rules:toolchain_type shows why each was rejected.").format(
        label = label,
        platform = target_platform,
        toolkits = _describe_toolkits(),
    )

def find_cuda_toolchain(ctx):
    """Returns the CudaToolchainInfo of the resolved CUDA toolchain; fails naming the platform if there is none.

    Args:
      ctx: the rule context of a rule with `toolchains = CUDA_TOOLCHAINS`.

    Returns:
      CudaToolchainInfo.
    """
    toolchain = ctx.toolchains[CUDA_TOOLCHAIN_TYPE]
    if toolchain == None:
        fail(no_toolkit_message(ctx.label, ctx.fragments.platform.platform))
    return toolchain.cuda

def _missing_cuda_toolchain_impl(ctx):
    fail(ctx.attr.message)

missing_cuda_toolchain = rule(
    implementation = _missing_cuda_toolchain_impl,
    doc = "Stands for a toolkit that is not there; fails with `message` when a build selects it.",
    attrs = {"message": attr.string(mandatory = True)},
)

def _cuda_toolkit_files_impl(ctx):
    cuda = find_cuda_toolchain(ctx)
    return [DefaultInfo(files = depset([cuda.nvcc], transitive = [cuda.compiler_files, cuda.device_link_files, cuda.lto_files]))]

cuda_toolkit_files = rule(
    implementation = _cuda_toolkit_files_impl,
    doc = "The selected toolkit's nvcc and everything it runs or reads, device linking included (for tests and tools that run nvcc).",
    toolchains = CUDA_TOOLCHAINS,
)

def _cuda_toolchain_runtime_impl(ctx):
    if ctx.toolchains[CUDA_TOOLCHAIN_TYPE] == None:
        # Every rule that links it resolves the toolchain too, and fails
        # naming itself and the platform: the error belongs to that target.
        return [CcInfo()]
    return [find_cuda_toolchain(ctx).runtime]

cuda_toolchain_runtime = rule(
    implementation = _cuda_toolchain_runtime_impl,
    doc = "The selected toolkit's CUDA runtime (static, what nvcc links by default): the default of //cuda_rules:runtime.",
    toolchains = CUDA_TOOLCHAINS,
    provides = [CcInfo],
)
