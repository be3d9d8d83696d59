"""fidelity_test: a staged cuda_library's PTX and cubins against nvcc's own."""

load("@cuda12_host_cc//:defs.bzl", "HOST_CC")
load("@rules_python//python:defs.bzl", "py_test")
load("//cuda_rules:defs.bzl", "cuda_device_link", "cuda_library")

_TOOLKIT = "//cuda_rules:toolkit"
_CLANG = "//tests/host_clang:clang"

def _toolkit_transition_impl(settings, attr):
    return {
        _TOOLKIT: attr.toolkit or settings[_TOOLKIT],
        _CLANG: attr.host_clang or settings[_CLANG],
    }

_toolkit_transition = transition(
    implementation = _toolkit_transition_impl,
    inputs = [_TOOLKIT, _CLANG],
    outputs = [_TOOLKIT, _CLANG],
)

def _with_toolkit_impl(ctx):
    files = depset(transitive = [s[DefaultInfo].files for s in ctx.attr.srcs])
    runfiles = ctx.runfiles(transitive_files = files).merge_all([s[DefaultInfo].default_runfiles for s in ctx.attr.srcs])
    return [DefaultInfo(files = files, runfiles = runfiles)]

with_toolkit = rule(
    implementation = _with_toolkit_impl,
    doc = "`srcs` (and their runfiles), built with --@rules_cuda_stages//cuda_rules:toolkit=`toolkit` (empty: unchanged), with clang as host compiler if `host_clang`.",
    attrs = {
        "host_clang": attr.bool(doc = "Build with --//tests/host_clang:clang (clang as the C++ toolchain; tests/host_clang)."),
        "srcs": attr.label_list(cfg = _toolkit_transition, doc = "The targets to build."),
        "toolkit": attr.string(doc = "The toolkit to build with; empty: the build's."),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)

def fidelity_test(name, srcs, reference_extra = [], expect = "equal", size = "medium", toolkit = "", host_clang = False, target_compatible_with = None, **kwargs):
    """Builds `srcs` with cuda_library (staged) and compares with nvcc --keep.

    Args:
      name: test name; the staged library is `<name>_staged`.
      srcs: .cu files.
      reference_extra: nvcc options given to the reference run only.
      expect: "equal", or "differ" (a non-vacuity check with reference_extra).
      size: test size.
      toolkit: the CUDA toolkit to build and compare with (default: the build's).
      host_clang: build with clang as the C++ toolchain and nvcc's host compiler (tests/host_clang);
        the reference nvcc gets the same -ccbin from the recorded command.
      target_compatible_with: of the test (the 12.4 cases need a host compiler CUDA 12.4 accepts).
      **kwargs: cuda_library attributes (copts, archs, ptxasopts, ...).
    """
    lib = name + "_staged"
    cuda_library(name = lib, srcs = srcs, tags = ["manual"], **kwargs)
    for group in ["ptx", "ltoir", "cubin", "registration_stub", "cuda_plan"]:
        native.filegroup(name = "{}_{}".format(lib, group), srcs = [":" + lib], output_group = group, tags = ["manual"])
    with_toolkit(
        name = name + "_inputs",
        srcs = [":{}_{}".format(lib, g) for g in ["ptx", "ltoir", "cubin", "registration_stub", "cuda_plan"]] + ["//cuda_rules:toolkit_files"],
        toolkit = toolkit,
        host_clang = host_clang,
        tags = ["manual"],
        testonly = True,
    )
    py_test(
        name = name,
        size = size,
        srcs = ["//tests/fidelity:fidelity_test.py"],
        main = "//tests/fidelity:fidelity_test.py",
        args = [
            "--target=" + lib,
            "--package=" + native.package_name(),
            "--expect=" + expect,
        ] + (["--reference_extra=" + ",".join(reference_extra)] if reference_extra else []) + (["--toolkit=" + toolkit] if toolkit else []),
        data = srcs + [":" + name + "_inputs"],
        deps = [
            "//tests/fidelity:nvcc_compare",
            "//tools/nvcc_plan:layout",
            "//tools/nvcc_plan:dryrun",
            "//tools/nvcc_plan:stages",
            "@rules_cuda_stages_pypi//absl_py",
            "@rules_cuda_stages_pypi//bazel_runfiles",
        ],
        target_compatible_with = target_compatible_with,
    )

def device_link_fidelity_test(name, deps, reference_extra = [], expect = "equal", size = "medium", toolkit = "", target_compatible_with = None):
    """Device-links `deps` with cuda_device_link and compares with nvcc -dlink on the same objects.

    Args:
      name: test name; the device link is `<name>_dlink`.
      deps: rdc cuda_library targets.
      reference_extra: nvcc options given to the reference run only.
      expect: "equal", or "differ" (a non-vacuity check with reference_extra).
      size: test size.
      toolkit: the CUDA toolkit to build and compare with (default: the build's).
      target_compatible_with: of the test.
    """
    dlink = name + "_dlink"
    cuda_device_link(name = dlink, deps = deps, tags = ["manual"])
    for group in ["device_link", "cuda_objects", "cuda_plan"]:
        native.filegroup(name = "{}_{}".format(dlink, group), srcs = [":" + dlink], output_group = group, tags = ["manual"])
    with_toolkit(
        name = name + "_inputs",
        srcs = [":{}_{}".format(dlink, g) for g in ["device_link", "cuda_objects", "cuda_plan"]] + ["//cuda_rules:toolkit_files"],
        toolkit = toolkit,
        tags = ["manual"],
        testonly = True,
    )
    py_test(
        name = name,
        size = size,
        srcs = ["//tests/fidelity:fidelity_test.py"],
        main = "//tests/fidelity:fidelity_test.py",
        args = [
            "--device_link=" + dlink,
            "--package=" + native.package_name(),
            "--expect=" + expect,
        ] + (["--reference_extra=" + ",".join(reference_extra)] if reference_extra else []) + (["--toolkit=" + toolkit] if toolkit else []),
        data = [":" + name + "_inputs"],
        deps = [
            "//tests/fidelity:nvcc_compare",
            "//tools/nvcc_plan:layout",
            "//tools/nvcc_plan:dryrun",
            "//tools/nvcc_plan:stages",
            "@rules_cuda_stages_pypi//absl_py",
            "@rules_cuda_stages_pypi//bazel_runfiles",
        ],
        target_compatible_with = target_compatible_with,
    )

def on_default_and_cuda12(rule, name, **kwargs):
    """`rule` (fidelity_test, device_link_fidelity_test) as `name` on the build's toolkit, and as cuda12_4_<name> on CUDA 12.4.

    The 12.4 case needs a host compiler nvcc 12.4 accepts (gcc <= 13:
    @cuda12_host_cc, tests/toolkit/host_cc.bzl); on a machine without one it is
    skipped (incompatible).

    Args:
      rule: fidelity_test or device_link_fidelity_test.
      name: the default toolkit's test.
      **kwargs: the rule's other arguments.
    """
    rule(name = name, **kwargs)
    rule(
        name = "cuda12_4_" + name,
        toolkit = "12.4",
        target_compatible_with = [] if HOST_CC else ["@platforms//:incompatible"],
        **kwargs
    )
