"""Sources whose names nvcc cannot take fail analysis with one message naming the file and the characters."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//tests/common:suite.bzl", "test_suite_of")

def _rejected_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "//tests/file_names:{}: {}: ".format(ctx.attr.name.rpartition("_rejected")[0], ctx.attr.file))
    asserts.expect_failure(env, "nvcc cannot compile a source whose path holds " + ctx.attr.characters)
    asserts.expect_failure(env, "Fix: rename the file")
    return analysistest.end(env)

rejected_test = analysistest.make(
    _rejected_test_impl,
    expect_failure = True,
    attrs = {"characters": attr.string(), "file": attr.string()},
)

def file_names_test_suite(name):
    """Analysis tests over the rejected targets of tests/file_names/BUILD.bazel.

    Args:
      name: the test_suite's name.
    """
    test_suite_of(name, {
        "backtick_rejected_test": (rejected_test, {
            "target_under_test": ":backtick",
            "file": "tests/file_names/back`tick.cu",
            "characters": "`",
        }),
        "dollar_rejected_test": (rejected_test, {
            "target_under_test": ":dollar",
            "file": "tests/file_names/dollar$x.cu",
            "characters": "$",
        }),
        "non_ascii_rejected_test": (rejected_test, {
            "target_under_test": ":non_ascii",
            "file": "tests/file_names/ключ.cu",
            "characters": "characters outside printable ASCII",
        }),
        "double_quote_rejected_test": (rejected_test, {
            "target_under_test": ":double_quote",
            "file": "tests/file_names/quote\"x.cu",
            "characters": "\"",
        }),
    })
