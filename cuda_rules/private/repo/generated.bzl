"""Rules and macros that the generated CUDA repositories (@cuda, @cuda_<v>, @cuda_<v>_<library>) load.

Public on purpose: a generated repository can load only files visible to it.
Users never load this file; its symbols are not API.
"""

load("@bazel_skylib//rules:common_settings.bzl", "bool_setting")
load("@rules_cc//cc:cc_binary.bzl", "cc_binary")
load("@rules_cc//cc:cc_import.bzl", "cc_import")

visibility("public")

# rules_cuda's `valid_toolchain_found` is a bool_setting: the repositories declare theirs with this.
cuda_bool_setting = bool_setting

def _cuda_missing_component_impl(ctx):
    fail(ctx.attr.message)

cuda_missing_component = rule(
    implementation = _cuda_missing_component_impl,
    doc = "Stands for a CUDA component that the selected toolkit lacks: analysis of anything that uses it fails with `message`.",
    attrs = {"message": attr.string(mandatory = True, doc = "Names the component, the toolkit and the fix.")},
)

def driver_library_stub(name, headers, soname, prefix, api_macro, **kwargs):
    """A link-only stub of a library that the driver provides (libcuda.so.1, libnvidia-ml.so.1).

    The stub exports every function the headers declare (after their versioning
    macros), so the linker records `soname` as needed; at run time the dynamic
    loader finds the driver's real library. It is never put in runfiles.

    Args:
      name: the cc_import target (system_provided) to depend on.
      headers: the headers declaring the library's functions (files of this package).
      soname: the real library's soname, e.g. "libcuda.so.1".
      prefix: the API's function prefix, e.g. "cu".
      api_macro: the calling-convention macro before each declared name, e.g. "CUDAAPI".
      **kwargs: common attributes (tags, visibility).
    """
    native.genrule(
        name = name + "_src",
        srcs = headers,
        outs = ["_stubs/{}/stub.c".format(name)],
        cmd = "$(execpath {tool}) {headers} --prefix={prefix} --api_macro={macro} --out=$@".format(
            tool = Label("//tools/cuda_stub:gen_stub"),
            headers = " ".join(["--header=$(execpath {})".format(h) for h in headers]),
            prefix = prefix,
            macro = api_macro,
        ),
        tools = [Label("//tools/cuda_stub:gen_stub")],
        visibility = ["//visibility:private"],
    )
    cc_binary(
        name = "_stubs/{}/{}".format(name, soname.split(".so")[0] + ".so"),
        srcs = [":" + name + "_src"],
        linkshared = True,
        linkopts = ["-Wl,-soname," + soname],
        visibility = ["//visibility:private"],
    )
    cc_import(
        name = name,
        interface_library = ":_stubs/{}/{}".format(name, soname.split(".so")[0] + ".so"),
        system_provided = True,
        **kwargs
    )

def _cuda_no_toolkit_for_platform_impl(ctx):
    fail(("rules_cuda_stages: {target}: the toolkit selected by --@rules_cuda_stages//cuda_rules:toolkit " +
          "has no repository for the target platform {platform} (toolkits exist for Linux x86_64 and " +
          "aarch64; the local toolkit for this machine's CPU). Fix: build for one of those " +
          "(--platforms), or select another toolkit.").format(target = ctx.attr.target, platform = ctx.fragments.platform.platform))

cuda_no_toolkit_for_platform = rule(
    implementation = _cuda_no_toolkit_for_platform_impl,
    doc = "The branch of an @cuda alias for a target platform no toolkit of the build has: analysis of anything that uses it fails naming the platform.",
    attrs = {"target": attr.string(mandatory = True, doc = "The @cuda label, for the message.")},
)
