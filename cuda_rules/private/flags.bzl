"""Build settings of the rules (beyond skylib's): options given once per build, repeated flags accumulating."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")

visibility(["//cuda_rules/...", "//tests/..."])

def _repeatable_string_flag_impl(ctx):
    return [BuildSettingInfo(value = [v for v in ctx.build_setting_value if v])]

repeatable_string_flag = rule(
    implementation = _repeatable_string_flag_impl,
    doc = "A list of strings set on the command line; each use of the flag adds one (--flag=a --flag=b).",
    build_setting = config.string_list(flag = True, repeatable = True),
)
