"""Builds under clang as the CUDA compiler (--@rules_cuda_stages//cuda_rules:compiler=clang), and the fidelity test."""

load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("@rules_python//python:defs.bzl", "py_test")
load("//cuda_rules:defs.bzl", "cuda_library")

_COMPILER = "//cuda_rules:compiler"
_TOOLKIT = "//cuda_rules:toolkit"
_HOST_CLANG = "//tests/host_clang:clang"
_CLANG22 = "//tests/clang:clang22"
_ARCHS = "//cuda_rules:archs"
_HOST_TOOLCHAIN = "//cuda_rules:host_toolchain"

# The toolkit of the supported pair with each clang of tools/bazelw (compile/clang.bzl's CLANG_CUDA_PAIRS):
# clang 21 (@host_clang, its clang addon) and clang 22 (@cuda_clang22, its clang22 addon).
CLANG_TOOLKITS = {
    21: "12.4",
    22: "13.0",
}

def _clang_transition_impl(settings, attr):
    # The hermetic clang 22 (--@rules_cuda_stages//cuda_rules:host_toolchain=clang22)
    # instead of tools/bazelw's.
    hermetic = getattr(attr, "hermetic", False)
    return {
        _COMPILER: "clang",
        _HOST_CLANG: attr.clang == 21,
        _CLANG22: attr.clang == 22 and not hermetic,
        _HOST_TOOLCHAIN: "clang22" if hermetic else settings[_HOST_TOOLCHAIN],
        _TOOLKIT: attr.toolkit or CLANG_TOOLKITS[attr.clang],
        _ARCHS: getattr(attr, "archs", "") or settings[_ARCHS],
    }

_clang_transition = transition(
    implementation = _clang_transition_impl,
    inputs = [_ARCHS, _HOST_TOOLCHAIN],
    outputs = [_COMPILER, _HOST_CLANG, _CLANG22, _HOST_TOOLCHAIN, _TOOLKIT, _ARCHS],
)

_CLANG_ATTR = attr.int(default = 21, values = [21, 22], doc = "The clang: 21 (@host_clang) or 22 (@cuda_clang22).")

def _with_clang_impl(ctx):
    files = depset(transitive = [s[DefaultInfo].files for s in ctx.attr.srcs] +
                                [h[CcInfo].compilation_context.headers for h in ctx.attr.headers])
    if ctx.attr.scripts_only:
        # The stage scripts, each at <name>/<its name>: runfiles paths do not
        # name the configuration, so two builds of one target need two places.
        scripts = []
        for f in files.to_list():
            if f.extension == "sh" and "/plan/" in f.path:
                out = ctx.actions.declare_file("{}/{}".format(ctx.label.name, f.basename))
                ctx.actions.symlink(output = out, target_file = f)
                scripts.append(out)
        files = depset(scripts)
        return [DefaultInfo(files = files, runfiles = ctx.runfiles(files = scripts))]
    runfiles = ctx.runfiles(transitive_files = files).merge_all([s[DefaultInfo].default_runfiles for s in ctx.attr.srcs])
    return [DefaultInfo(files = files, runfiles = runfiles)]

with_clang = rule(
    implementation = _with_clang_impl,
    doc = "`srcs` (and their runfiles) built with clang as the CUDA compiler: the C++ toolchain of tests/host_clang, " +
          "--@rules_cuda_stages//cuda_rules:compiler=clang and `toolkit`.",
    attrs = {
        "srcs": attr.label_list(cfg = _clang_transition, doc = "The targets to build."),
        "headers": attr.label_list(cfg = _clang_transition, providers = [CcInfo], doc = "C++ targets whose headers join the files."),
        "archs": attr.string(doc = "--@rules_cuda_stages//cuda_rules:archs for `srcs` (default: the build's)."),
        "scripts_only": attr.bool(doc = "The files are the stage scripts among `srcs`' files, at <name>/<script>."),
        "clang": _CLANG_ATTR,
        "hermetic": attr.bool(doc = "clang 22 is the hermetic one (host_toolchain=clang22), not tools/bazelw's."),
        "toolkit": attr.string(doc = "The toolkit (default: CLANG_TOOLKITS[clang])."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)

def _clang_compiled_impl(ctx):
    lib = ctx.attr.lib
    lib = lib[0] if type(lib) == "list" else lib
    return [lib[CcInfo], DefaultInfo(files = lib[DefaultInfo].files)]

clang_compiled = rule(
    implementation = _clang_compiled_impl,
    doc = "The CcInfo of `lib` (a cuda_library) compiled with clang as the CUDA compiler (as with_clang), " +
          "for a binary that links it with code nvcc compiled.",
    attrs = {
        "lib": attr.label(cfg = _clang_transition, providers = [CcInfo], doc = "The cuda_library."),
        "clang": _CLANG_ATTR,
        "toolkit": attr.string(doc = "The toolkit (default: CLANG_TOOLKITS[clang])."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)

def clang_fidelity_test(name, srcs, reference_extra = [], expect = "equal", clang = 21, hermetic = False, **kwargs):
    """Builds `srcs` with cuda_library under clang, in stages, and compares with clang's own one-shot compile.

    Args:
      name: test name; the staged library is `<name>_staged`.
      srcs: .cu files.
      clang: the clang (21 or 22), with the toolkit of its pair (CLANG_TOOLKITS).
      hermetic: clang 22 is the hermetic toolchain's (host_toolchain=clang22), whose files the
        reference compile runs from the test's runfiles.
      reference_extra: clang options given to the reference compiles only.
      expect: "equal", or "differ" (a non-vacuity check with reference_extra).
      **kwargs: cuda_library attributes (copts, archs, ...).
    """
    lib = name + "_staged"
    cuda_library(name = lib, srcs = srcs, tags = ["manual"], **kwargs)
    groups = ["ptx", "cubin", "fatbin", "cuda_objects", "cuda_plan"]
    for group in groups:
        native.filegroup(name = "{}_{}".format(lib, group), srcs = [":" + lib], output_group = group, tags = ["manual"])
    with_clang(
        name = name + "_inputs",
        clang = clang,
        hermetic = hermetic,
        srcs = [":{}_{}".format(lib, g) for g in groups] + ["//cuda_rules:toolkit_files"] +
               (["@cuda_host_clang22//:all_files"] if hermetic else []),
        # What clang's CUDA wrapper includes from outside the toolkit (CUDA 13: cuRAND's headers).
        headers = ["//cuda_rules:clang_wrapper_headers"],
        tags = ["manual"],
        testonly = True,
    )
    py_test(
        name = name,
        size = "medium",
        srcs = ["//tests/clang:clang_fidelity_test.py"],
        main = "//tests/clang:clang_fidelity_test.py",
        args = [
            "--target=" + lib,
            "--package=" + native.package_name(),
            "--expect=" + expect,
        ] + (["--reference_extra=" + ",".join(reference_extra)] if reference_extra else []),
        data = srcs + [":" + name + "_inputs"],
        deps = [
            "//tests/fidelity:nvcc_compare",
            "//tools/nvcc_plan:layout",
            "//tools/nvcc_plan:stages",
            "@rules_cuda_stages_pypi//absl_py",
            "@rules_cuda_stages_pypi//bazel_runfiles",
        ],
    )

def clang_arch_subset_test(name, src, clang, subset):
    """One source's stage scripts in a build of the shipped set and of `subset`: one arch's device compile and ptxas, and the host compile, must be the same commands.

    Args:
      name: test name.
      src: the .cu file.
      clang: the clang (CLANG_TOOLKITS' key).
      subset: archs of the developer's build, one GPU arch of the shipped set (e.g. "sm_90").
    """
    lib = name + "_lib"
    cuda_library(name = lib, srcs = [src], tags = ["manual"])
    native.filegroup(name = lib + "_plan", srcs = [":" + lib], output_group = "cuda_plan", tags = ["manual"])
    for side, archs in (("shipped", "shipped"), ("subset", subset)):
        with_clang(name = "{}_{}".format(name, side), srcs = [":{}_plan".format(lib)], archs = archs, clang = clang, scripts_only = True, tags = ["manual"], testonly = True)
    virtual = "compute_" + subset[len("sm_"):]
    py_test(
        name = name,
        size = "small",
        srcs = ["//tests/clang:arch_subset_commands_test.py"],
        main = "//tests/clang:arch_subset_commands_test.py",
        args = [
            "--shipped",
            "$(rlocationpaths :{}_shipped)".format(name),
            "--subset",
            "$(rlocationpaths :{}_subset)".format(name),
            "--same",
            "clang_device.{}.sh".format(virtual),
            "ptxas.{}.{}.sh".format(virtual, subset),
            "clang_host.sh",
            "--differ",
            "fatbinary.sh",
        ],
        data = [":{}_shipped".format(name), ":{}_subset".format(name)],
        deps = ["@rules_cuda_stages_pypi//bazel_runfiles"],
    )
