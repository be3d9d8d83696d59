"""The cuda_toolchain rule and the toolchain type."""

load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load(":providers.bzl", "CudaToolchainInfo")

visibility(["//cuda_rules/...", "//tests/..."])

CUDA_TOOLCHAIN_TYPE = "@rules_cuda_stages//cuda_rules:toolchain_type"

CUDA_TOOLCHAINS = [CUDA_TOOLCHAIN_TYPE]

def _files(target):
    return target[DefaultInfo].files

def _cuda_toolchain_impl(ctx):
    nvcc = ctx.file.nvcc
    cuda = CudaToolchainInfo(
        version = ctx.attr.version,
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
    },
    provides = [platform_common.ToolchainInfo],
)

def find_cuda_toolchain(ctx):
    """Returns the CudaToolchainInfo of the resolved CUDA toolchain.

    Args:
      ctx: the rule context of a rule with `toolchains = CUDA_TOOLCHAINS`.

    Returns:
      CudaToolchainInfo.
    """
    return ctx.toolchains[CUDA_TOOLCHAIN_TYPE].cuda

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
    return [find_cuda_toolchain(ctx).runtime]

cuda_toolchain_runtime = rule(
    implementation = _cuda_toolchain_runtime_impl,
    doc = "The selected toolkit's CUDA runtime (static, what nvcc links by default): the default of //cuda_rules:runtime.",
    toolchains = CUDA_TOOLCHAINS,
    provides = [CcInfo],
)
