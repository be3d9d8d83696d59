"""The fidelity fuzzer's clang mode where tools/bazelw's clang 21 is the host clang, and a test saying how to get it where not."""

load("@host_clang//:defs.bzl", "HOST_CLANG", "HOST_CLANG_MAJOR", "HOST_CLANG_MISSING")
load("@rules_python//python:defs.bzl", "py_test")
load("//tests/host_clang:host_clang.bzl", "missing_test")

def _has_clang():
    # clang 21 x CUDA 12.4: the pair tests/clang tests (compile/clang.bzl's pairs).
    return bool(HOST_CLANG) and HOST_CLANG_MAJOR == 21

def clang_data(clang):
    """`clang` (the with_clang target of the probe and the toolkit) where clang 21 is there, else [].

    Args:
      clang: the label of that target.

    Returns:
      A list of labels, for data.
    """
    return [clang] if _has_clang() else []

def clang_fuzz_test(name, args, data, deps, **kwargs):
    """The fuzzer's clang mode as a test (fidelity_fuzz.py --compiler=clang), or one that fails saying how to get clang 21.

    Args:
      name: the test's name.
      args: the fuzzer's arguments besides --compiler=clang.
      data: the test's data (the with_clang target among them).
      deps: the fuzzer's libraries.
      **kwargs: more py_test attributes (size, tags).
    """
    if not _has_clang():
        missing_test(
            name = name,
            message = HOST_CLANG_MISSING or ("needs clang 21 (with CUDA 12.4), found clang {} ({}): run " +
                                             "`tools/bazelw --bazelw-addon clang` (docs/bazelw.md, \"Addons\")").format(HOST_CLANG_MAJOR, HOST_CLANG),
        )
        return
    py_test(
        name = name,
        srcs = ["fidelity_fuzz.py"],
        main = "fidelity_fuzz.py",
        args = ["--compiler=clang"] + args,
        data = data,
        deps = deps,
        **kwargs
    )
