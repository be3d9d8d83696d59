"""rules_cuda's public names that these rules keep for a mechanical migration, and those that make no sense here.

docs/migrating.md lists every rules_cuda symbol, flag, attribute and label with
its counterpart here.
"""

load("@rules_cc//cc:cc_import.bzl", "cc_import")
load("@rules_cc//cc:cc_library.bzl", "cc_library")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAINS")

visibility(["//cuda_rules/..."])

def use_cuda_toolchain():
    """The toolchains a rule using the CUDA toolchain declares (rules_cuda's helper): `toolchains = use_cuda_toolchain()`.

    Returns:
      A list of toolchain types.
    """
    return CUDA_TOOLCHAINS

def cc_import_versioned_sos(name, shared_library):
    """A cc_library over every versioned .so of a prefix (rules_cuda's helper).

    Args:
      name: the cc_library's name.
      shared_library: the prefix of the .so files, e.g. "lib/libfoo.so" for libfoo.so.1, libfoo.so.1.2.
    """
    so_paths = native.glob([shared_library + "*"])
    names = []
    for path in so_paths:
        import_name = path.rpartition("/")[2]
        cc_import(
            name = import_name,
            shared_library = path,
            target_compatible_with = ["@platforms//os:linux"],
        )
        names.append(":" + import_name)
    cc_library(name = name, deps = names)

def _refuse_toolchain(name, symbol):
    fail(("{}: rules_cuda's {}() defines a CUDA toolchain by hand. rules_cuda_stages creates its " +
          "toolchains from the `cuda` module extension (cuda.toolkit(version = ...) for NVIDIA's " +
          "hermetic toolkits, cuda.local_toolkit(path = ...) for an installed one) and registers them " +
          "itself. Fix: remove this target and its register_toolchains line; see docs/migrating.md.").format(
        name,
        symbol,
    ))

# rules_cuda's toolchain definition macros: each fails, naming what replaces it.

def cuda_toolkit(name, **_attrs):
    """rules_cuda's toolkit definition: fails here (toolkits come from the `cuda` module extension).

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    _refuse_toolchain(name, "cuda_toolkit")

def cuda_toolkit_info(name, **_attrs):
    """rules_cuda's toolkit description: fails here (toolkits come from the `cuda` module extension).

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    _refuse_toolchain(name, "cuda_toolkit_info")

def cuda_toolchain_config_nvcc(name, **_attrs):
    """rules_cuda's nvcc toolchain configuration: fails here (toolchains come from the `cuda` module extension).

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    _refuse_toolchain(name, "cuda_toolchain_config_nvcc")

def cuda_toolchain_config_nvcc_msvc(name, **_attrs):
    """rules_cuda's MSVC toolchain configuration: fails here (Linux only; toolchains come from the `cuda` module extension).

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    _refuse_toolchain(name, "cuda_toolchain_config_nvcc_msvc")

def cuda_toolchain_config_clang(name, **_attrs):
    """rules_cuda's clang CUDA toolchain: not here (fails, naming what to do instead).

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    fail(("{}: rules_cuda's clang CUDA toolchain has no counterpart here: with " +
          "--@rules_cuda_stages//cuda_rules:compiler=clang these rules compile CUDA with the C++ toolchain's clang " +
          "(docs/cuda_library.md, \"clang as the CUDA compiler\"). Fix: remove it, and point Bazel's C++ toolchain at clang.").format(name))

def cuda_toolchain(name, **_attrs):
    """rules_cuda's toolchain rule: fails here (toolchains come from the `cuda` module extension).

    (The toolchain rule of these rules is `cuda_toolchain` of @rules_cuda_stages//cuda_rules:toolchain.bzl.)

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    _refuse_toolchain(name, "cuda_toolchain")

def cuda_toolchain_config_disabled(name, **_attrs):
    """rules_cuda's toolchain for CUDA turned off: fails here (--@rules_cuda_stages//cuda_rules:enable=false needs none).

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    _refuse_toolchain(name, "cuda_toolchain_config_disabled")

def unsupported_cuda_version(name, **_attrs):
    """rules_cuda's marker toolchain of an unsupported CUDA version: fails here (toolchains come from the `cuda` module extension).

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    _refuse_toolchain(name, "unsupported_cuda_version")

def unsupported_cuda_platform(name, **_attrs):
    """rules_cuda's marker toolchain of an unsupported platform: fails here (toolchains come from the `cuda` module extension).

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    _refuse_toolchain(name, "unsupported_cuda_platform")

def cuda_archs(name, **_attrs):
    """rules_cuda's arch-list build setting rule: fails here, naming the flag and attribute that take archs.

    Args:
      name: the target's name.
      **_attrs: ignored.
    """
    fail(("{}: rules_cuda's cuda_archs() defines an arch-list build setting. Here the archs are the build " +
          "setting --@rules_cuda_stages//cuda_rules:archs (rules_cuda's forms, plain lists, native), the `archs` " +
          "attribute of each target, and the shipped set, cuda.archs(shipped = ...) in MODULE.bazel. Fix: remove " +
          "this target and use those (docs/cuda_library.md, \"Archs\").").format(name))
