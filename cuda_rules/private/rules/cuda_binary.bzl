"""cuda_binary and cuda_test: cc_binary / cc_test over a cuda_library of their sources."""

load("@rules_cc//cc:cc_binary.bzl", "cc_binary")
load("@rules_cc//cc:cc_test.bzl", "cc_test")
load("//cuda_rules/private:requires_cuda.bzl", "with_requires_cuda")
load("//cuda_rules/private:rules/cuda_device_link.bzl", "cuda_device_link")
load("//cuda_rules/private:rules/cuda_library.bzl", "cuda_library")

visibility(["//cuda_rules/...", "//tests/..."])

# Attributes that go to the cuda_library compiling the sources; the rest go to
# the cc_binary / cc_test.
_LIBRARY_ATTRS = [
    "archs",
    "copts",
    "defines",
    "hdrs",
    "host_copts",
    "host_defines",
    "host_local_defines",
    "implementation_deps",
    "includes",
    "local_defines",
    "optf",
    "ptxasopts",
    "rdc",
    "staged",
]

def _rules_cuda_names(kwargs):
    # rules_cuda's names on its macros: host_linkopts are the binary's linkopts;
    # alwayslink is the library's, which is always alwayslink here (as there).
    if "host_linkopts" in kwargs:
        kwargs["linkopts"] = kwargs.get("linkopts", []) + kwargs.pop("host_linkopts")
    kwargs.pop("alwayslink", None)

def _split(name, srcs, deps, kwargs):
    lib_kwargs = {k: kwargs.pop(k) for k in _LIBRARY_ATTRS if k in kwargs}
    common = {
        "tags": kwargs.get("tags", []) + ["manual"],
        "testonly": kwargs.get("testonly", False),
        "visibility": ["//visibility:private"],
        "target_compatible_with": kwargs.get("target_compatible_with"),
    }
    lib = "_{}_cuda".format(name)
    cuda_library(
        name = lib,
        srcs = srcs,
        deps = deps,
        alwayslink = True,
        **dict(common, **lib_kwargs)
    )

    # One device link of all the relocatable device code in the binary (it
    # only passes the libraries on when there is none); the binary links
    # through it.
    dlink = "_{}_dlink".format(name)
    cuda_device_link(
        name = dlink,
        deps = [":" + lib] + deps,
        dlinkopts = kwargs.pop("dlinkopts", []),
        **common
    )
    return [":" + dlink]

def cuda_binary(name, srcs = [], deps = [], **kwargs):
    """A cc_binary whose sources are CUDA (.cu and C++ files, compiled by a cuda_library in stages).

    Args:
      name: the binary's name.
      srcs: CUDA sources (.cu, and C++ files compiled with nvcc -x cu, as in rules_cuda), C sources
        and private headers.
      deps: cuda_library / cuda_objects / cc_library dependencies.
      **kwargs: cuda_library attributes (copts, host_copts, ptxasopts, defines, host_defines,
        local_defines, host_local_defines, includes, implementation_deps, optf, archs, staged, hdrs,
        rdc), `dlinkopts` for the device link, and cc_binary attributes. All relocatable device code
        (rdc = True here or below) is device-linked once for the binary (cuda_device_link).
        rules_cuda's `host_linkopts` are the binary's `linkopts`, and its `alwayslink` is ignored (the
        sources' library is alwayslink). requires_cuda() is added to target_compatible_with.
    """
    kwargs["target_compatible_with"] = with_requires_cuda(kwargs.get("target_compatible_with"))
    _rules_cuda_names(kwargs)
    cc_binary(name = name, deps = _split(name, srcs, deps, kwargs), **kwargs)

def cuda_test(name, srcs = [], deps = [], **kwargs):
    """A cc_test whose sources are CUDA (.cu and C++ files); tag GPU tests with "requires-gpu".

    Args:
      name: the test's name.
      srcs: as for cuda_binary.
      deps: cuda_library / cuda_objects / cc_library dependencies.
      **kwargs: cuda_library attributes (see cuda_binary), `dlinkopts`, and cc_test attributes.
    """
    kwargs["target_compatible_with"] = with_requires_cuda(kwargs.get("target_compatible_with"))
    _rules_cuda_names(kwargs)
    kwargs.setdefault("testonly", True)
    testonly = kwargs.pop("testonly")
    deps = _split(name, srcs, deps, dict(kwargs, testonly = testonly))
    for k in _LIBRARY_ATTRS + ["dlinkopts"]:
        kwargs.pop(k, None)
    cc_test(name = name, deps = deps, **kwargs)
