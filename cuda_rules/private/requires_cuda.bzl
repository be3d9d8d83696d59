"""Turning CUDA off for a build (--@rules_cuda_stages//cuda_rules:enable=false), and the macros' small helpers."""

visibility(["//cuda_rules/..."])

def requires_cuda():
    """A target_compatible_with value that makes a target incompatible when CUDA is off.

    Use it on targets that need CUDA, e.g. a cc_binary over a cuda_library:

        cc_binary(name = "app", ..., target_compatible_with = requires_cuda())

    With --@rules_cuda_stages//cuda_rules:enable=false such targets are skipped by
    `bazel build //...` and fail with Bazel's "incompatible" message when named
    explicitly. The rules' own targets (cuda_library, cuda_objects, cuda_binary,
    cuda_test, cuda_device_link) have it already. Code that should build either way
    uses a select on @rules_cuda_stages//cuda_rules:is_enabled instead.

    Returns:
      A select() for target_compatible_with.
    """
    return select({
        Label("//cuda_rules:is_enabled"): [],
        "//conditions:default": [Label("@platforms//:incompatible")],
    })

def with_requires_cuda(target_compatible_with):
    """`target_compatible_with` (a list, a select or None) plus requires_cuda()."""
    if target_compatible_with == None:
        return requires_cuda()
    return target_compatible_with + requires_cuda()

def staged_value(name, staged):
    """The rules' `staged` attribute value (1, 0, -1) for the macros' True / False / None."""
    if staged not in (None, True, False):
        fail("{}: staged must be True, False or None, not {}".format(name, repr(staged)))
    return -1 if staged == None else (1 if staged else 0)

def archs_value(archs):
    """The rules' `archs` string for the macros' `archs`: a string, or rules_cuda's list of arch specs.

    rules_cuda's `archs` is a list whose elements it joins with ";". Here a list
    of `virtual:codes` specs is joined the same way, and a list of plain archs
    (["sm_80", "sm_90"]) with commas, the form the attribute takes here.
    A select() is passed on as it is (its values must be strings).

    Args:
      archs: None, a string, a list of strings, or a select().

    Returns:
      The attribute's value (None when unset).
    """
    if type(archs) != "list":
        return archs
    if [a for a in archs if ":" in a]:
        return ";".join(archs)
    return ",".join(archs)

def if_linux(if_true, if_false = []):
    """`if_true` when building for Linux, else `if_false` (rules_cuda's helper).

    Args:
      if_true: the value for Linux.
      if_false: the value otherwise.

    Returns:
      A select().
    """
    return select({
        Label("@platforms//os:linux"): if_true,
        "//conditions:default": if_false,
    })

def if_windows(if_true, if_false = []):
    """`if_true` when building for Windows, else `if_false` (rules_cuda's helper; these rules build on Linux).

    Args:
      if_true: the value for Windows.
      if_false: the value otherwise.

    Returns:
      A select().
    """
    return select({
        Label("@platforms//os:windows"): if_true,
        "//conditions:default": if_false,
    })
