"""Public rules of rules_cuda_stages.

    load("@rules_cuda_stages//cuda_rules:defs.bzl", "cuda_library", "cuda_objects", "cuda_binary", "cuda_test",
         "cuda_device_link", "cuda_device_image", "requires_cuda")

The names of bazel-contrib/rules_cuda's `@rules_cuda//cuda:defs.bzl` are here too, so migrating
is rewriting `@rules_cuda//cuda:` to `@rules_cuda_stages//cuda_rules:` (docs/migrating.md).
Definitions outside cuda_rules/*.bzl are private.
"""

load(
    "//cuda_rules/private:compat.bzl",
    _cc_import_versioned_sos = "cc_import_versioned_sos",
    _cuda_archs = "cuda_archs",
    _cuda_toolchain = "cuda_toolchain",
    _cuda_toolchain_config_clang = "cuda_toolchain_config_clang",
    _cuda_toolchain_config_disabled = "cuda_toolchain_config_disabled",
    _cuda_toolchain_config_nvcc = "cuda_toolchain_config_nvcc",
    _cuda_toolchain_config_nvcc_msvc = "cuda_toolchain_config_nvcc_msvc",
    _cuda_toolkit = "cuda_toolkit",
    _cuda_toolkit_info = "cuda_toolkit_info",
    _unsupported_cuda_platform = "unsupported_cuda_platform",
    _unsupported_cuda_version = "unsupported_cuda_version",
    _use_cuda_toolchain = "use_cuda_toolchain",
)
load("//cuda_rules/private:requires_cuda.bzl", _if_linux = "if_linux", _if_windows = "if_windows", _requires_cuda = "requires_cuda")
load("//cuda_rules/private:rules/cuda_binary.bzl", _cuda_binary = "cuda_binary", _cuda_test = "cuda_test")
load("//cuda_rules/private:rules/cuda_device_image.bzl", _cuda_device_image = "cuda_device_image")
load("//cuda_rules/private:rules/cuda_device_link.bzl", _cuda_device_link = "cuda_device_link")
load("//cuda_rules/private:rules/cuda_library.bzl", _cuda_library = "cuda_library")
load("//cuda_rules/private:rules/cuda_objects.bzl", _cuda_objects = "cuda_objects")
load("//cuda_rules/private:toolchain.bzl", _find_cuda_toolchain = "find_cuda_toolchain")

cuda_library = _cuda_library
cuda_objects = _cuda_objects
cuda_binary = _cuda_binary
cuda_test = _cuda_test
cuda_device_link = _cuda_device_link
cuda_device_image = _cuda_device_image
requires_cuda = _requires_cuda

# rules_cuda's helpers, for rules_cuda's BUILD and .bzl files.
if_linux = _if_linux
if_windows = _if_windows
cc_import_versioned_sos = _cc_import_versioned_sos
use_cuda_toolchain = _use_cuda_toolchain
find_cuda_toolchain = _find_cuda_toolchain

# rules_cuda's toolchain definitions: they fail naming the module extension
# that replaces them (toolchains are created and registered by the rules).
cuda_toolkit = _cuda_toolkit
cuda_toolkit_info = _cuda_toolkit_info
cuda_toolchain_config_nvcc = _cuda_toolchain_config_nvcc
cuda_toolchain_config_nvcc_msvc = _cuda_toolchain_config_nvcc_msvc
cuda_toolchain_config_clang = _cuda_toolchain_config_clang
cuda_toolchain = _cuda_toolchain
cuda_toolchain_config_disabled = _cuda_toolchain_config_disabled
unsupported_cuda_version = _unsupported_cuda_version
unsupported_cuda_platform = _unsupported_cuda_platform

# rules_cuda's arch-list rule: fails naming the flag and attribute that take archs.
cuda_archs = _cuda_archs
