"""Offline stand-in for buildozer's `buildozer_binary` module extension.

It creates the repository @bazel_tools expects, holding nothing: this project
never runs buildozer through Bazel.
"""

def _empty_repo_impl(rctx):
    rctx.file("BUILD.bazel", "# Empty offline stand-in (rules_cuda_stages tools/offline).\n")

_empty_repo = repository_rule(implementation = _empty_repo_impl)

def _buildozer_binary_impl(module_ctx):  # @unused
    _empty_repo(name = "buildozer_binary")

buildozer_binary = module_extension(implementation = _buildozer_binary_impl)
