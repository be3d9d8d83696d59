"""The rules behind cuda_rules/defs.bzl's macros: their attributes.

cuda_library, cuda_objects, cuda_device_link and cuda_device_image of `@rules_cuda_stages//cuda_rules:defs.bzl` are
macros over these rules, taking the attributes below; the macros add `requires_cuda()` to
`target_compatible_with` and resolve `staged` (docs/api/defs.md). cuda_binary and cuda_test pass
cuda_library's attributes on.
"""

load("//cuda_rules/private:rules/cuda_device_image.bzl", _cuda_device_image = "cuda_device_image_rule")
load("//cuda_rules/private:rules/cuda_device_link.bzl", _cuda_device_link = "cuda_device_link_rule")
load("//cuda_rules/private:rules/cuda_library.bzl", _cuda_library = "cuda_library_rule")
load("//cuda_rules/private:rules/cuda_objects.bzl", _cuda_objects = "cuda_objects_rule")

visibility("private")

cuda_library = _cuda_library
cuda_objects = _cuda_objects
cuda_device_link = _cuda_device_link
cuda_device_image = _cuda_device_image
