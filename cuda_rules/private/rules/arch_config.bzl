"""arch_config: the build's archs and __CUDA_ARCH_LIST__, resolved once per configuration.

Every cuda_library depends on //cuda_rules:arch_config, so the flags are read,
parsed and checked in one place, and what the build must be told (archs
outside the shipped set, `native` finding no GPU) is printed once per build,
not once per target.
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@cuda_shipped_archs//:shipped.bzl", "SHIPPED_ARCHS", "SHIPPED_ARCHS_ORIGIN")
load("//cuda_rules/private:archs.bzl", "arch_list", "outside_shipped", "parse_archs", "pinned_arch_list")
load("//cuda_rules/private:providers.bzl", "CudaArchConfigInfo")

visibility(["//cuda_rules/...", "//tests/..."])

ARCHS_FLAG = "--@rules_cuda_stages//cuda_rules:archs"
SHIPPED_FLAG = "--@rules_cuda_stages//cuda_rules:shipped_archs"

def _shipped_origin(value):
    if value == SHIPPED_ARCHS:
        return SHIPPED_ARCHS_ORIGIN
    return "{}={}".format(SHIPPED_FLAG, value)

def _native_notice(detected, shipped_spec):
    reasons = detected.get("reasons", [])
    return ("rules_cuda_stages: {flag}=native found no GPU to compile for ({why}), so this build compiles the " +
            "shipped set ({shipped}). Fix: choose archs explicitly, e.g. {flag}=sm_90 " +
            "(`nvidia-smi --query-gpu=compute_cap` on the GPU machine shows 9.0 for sm_90).").format(
        flag = ARCHS_FLAG,
        why = "; ".join(reasons) if reasons else "no reason given",
        shipped = shipped_spec,
    )

def resolve_arch_config(archs_value, shipped_value, detected, compiler = "nvcc"):
    """The arch configuration from the flags' values (pure: no ctx, for tests and the rule).

    Args:
      archs_value: //cuda_rules:archs: "shipped", "native" or an arch string.
      shipped_value: //cuda_rules:shipped_archs.
      detected: for "native", the detection result (dict: archs, source, reasons), else None.
      compiler: //cuda_rules:compiler. clang defines no __CUDA_ARCH_LIST__, so its
        stages reuse CI's for any archs: no notice for archs outside the shipped set.

    Returns:
      struct(error = message or None, and the fields of CudaArchConfigInfo).
    """
    shipped_origin = _shipped_origin(shipped_value)
    shipped = parse_archs(shipped_value, "the shipped set ({})".format(shipped_origin))
    if shipped.error:
        return struct(error = shipped.error + ("\nFix: correct the shipped set: cuda.archs(shipped = ...) in the root " +
                                               "MODULE.bazel, or {}=... in .bazelrc.").format(SHIPPED_FLAG))
    notices = []
    if archs_value == "shipped":
        archs, origin = shipped, "the shipped set ({})".format(shipped_origin)
    elif archs_value == "native":
        found = (detected or {}).get("archs", [])
        if found:
            spec = ",".join(found)
            origin = "{}=native (this machine's GPUs: {}, from {})".format(ARCHS_FLAG, spec, detected.get("source", "?"))
            archs = parse_archs(spec, origin)
            if archs.error:
                return struct(error = archs.error)
        else:
            notices.append(_native_notice(detected or {}, shipped_value))
            archs, origin = shipped, "the shipped set ({}), as {}=native found no GPU".format(shipped_origin, ARCHS_FLAG)
    else:
        origin = "{}={}".format(ARCHS_FLAG, archs_value)
        archs = parse_archs(archs_value, ARCHS_FLAG)
        if archs.error:
            return struct(error = archs.error + "\nOr: {}=shipped (the default: the shipped set, {}) or {}=native (this machine's GPUs).".format(
                ARCHS_FLAG,
                shipped_value,
                ARCHS_FLAG,
            ))
    pinned = pinned_arch_list(archs, shipped)
    outside = outside_shipped(archs, shipped)
    if outside and compiler != "clang":
        notices.append((
            "rules_cuda_stages: this build compiles {outside}, outside the shipped set ({shipped}; {shipped_origin}). " +
            "Its cuda_library targets therefore use their own __CUDA_ARCH_LIST__ ({own}) instead of the shipped set's " +
            "({shipped_list}), which is correct but means they will not reuse CI's cached stages (device code, host " +
            "preprocess, frontend). Fix: choose archs from the shipped set (e.g. {flag}=sm_90), or add {outside} " +
            "to the shipped set if CI should build it."
        ).format(
            outside = ", ".join(outside),
            shipped = shipped_value,
            shipped_origin = shipped_origin,
            own = arch_list(archs),
            shipped_list = arch_list(shipped),
            flag = ARCHS_FLAG,
        ))
    return struct(
        error = None,
        archs = archs,
        archs_origin = origin,
        shipped = shipped,
        shipped_spec = shipped_value,
        shipped_origin = shipped_origin,
        pinned_arch_list = pinned,
        notice = "\n".join(notices),
    )

def rules_cuda_flags_error(version, toolkit, exec_platform, aarch64):
    """What rules_cuda's other flags ask that cannot be done here, or None (pure, for tests).

    Args:
      version: //cuda_rules:version (rules_cuda's CUDA version, e.g. "12.6.3"; "" unset).
      toolkit: //cuda_rules:toolkit, the build's toolkit ("13.0", "local", ...).
      exec_platform: //cuda_rules:exec_platform ("" unset).
      aarch64: //cuda_rules:aarch64 ("sbsa" or "aarch64").

    Returns:
      A message naming the flag and its replacement, or None.
    """
    if version and toolkit != "local" and ".".join(version.split(".")[:2]) != toolkit:
        return ("rules_cuda_stages: --@rules_cuda_stages//cuda_rules:version={v} is rules_cuda's choice of the CUDA " +
                "version; here --@rules_cuda_stages//cuda_rules:toolkit chooses it, and this build's toolkit is {t}. " +
                "Fix: --@rules_cuda_stages//cuda_rules:toolkit={mm} instead (a release not pinned here: " +
                "cuda.redist(version = \"{v}\", ...) in MODULE.bazel, docs/toolkits.md).").format(
            v = version,
            t = toolkit,
            mm = ".".join(version.split(".")[:2]),
        )
    if exec_platform:
        return ("rules_cuda_stages: --@rules_cuda_stages//cuda_rules:exec_platform={p} is rules_cuda's pin of the " +
                "execution platform's toolkit; here each hermetic toolkit registers a toolchain per platform and " +
                "Bazel picks the one of the execution platform. Fix: drop the flag (to build on another machine " +
                "type, give Bazel that execution platform: --extra_execution_platforms).").format(p = exec_platform)
    if aarch64 == "aarch64":
        return ("rules_cuda_stages: --@rules_cuda_stages//cuda_rules:aarch64=aarch64 asks for NVIDIA's Tegra " +
                "(Jetson, DRIVE) toolkit; the hermetic aarch64 toolkits here are the server ones (sbsa). Fix: drop " +
                "the flag, or use the toolkit installed on the Tegra machine " +
                "(--@rules_cuda_stages//cuda_rules:toolkit=local).")
    return None

def _arch_config_impl(ctx):
    error = rules_cuda_flags_error(
        ctx.attr._version[BuildSettingInfo].value,
        ctx.attr._toolkit[BuildSettingInfo].value,
        ctx.attr._exec_platform[BuildSettingInfo].value,
        ctx.attr._aarch64[BuildSettingInfo].value,
    )
    if error:
        fail(error)
    detected = None
    if ctx.attr.detected:
        detected = json.decode(ctx.attr.detected[BuildSettingInfo].value)
    value = ctx.attr._archs[BuildSettingInfo].value
    if value == "native" and detected == None:
        fail("rules_cuda_stages: {}=native, but //cuda_rules:arch_config got no detection result.".format(ARCHS_FLAG))
    config = resolve_arch_config(value, ctx.attr._shipped_archs[BuildSettingInfo].value, detected, ctx.attr._compiler[BuildSettingInfo].value)
    if config.error:
        fail(config.error)
    if config.notice:
        # Analysed once per configuration: one message per build.
        print(config.notice)  # buildifier: disable=print
    return [CudaArchConfigInfo(
        archs = config.archs,
        archs_origin = config.archs_origin,
        shipped = config.shipped,
        shipped_spec = config.shipped_spec,
        shipped_origin = config.shipped_origin,
        pinned_arch_list = config.pinned_arch_list,
        notice = config.notice,
    )]

arch_config = rule(
    implementation = _arch_config_impl,
    doc = "Resolves //cuda_rules:archs against //cuda_rules:shipped_archs (and, for `native`, the detected GPUs).",
    attrs = {
        "detected": attr.label(
            doc = "@cuda_native_archs//:detected, through a select() on archs=native only, so only such builds detect GPUs.",
            providers = [BuildSettingInfo],
        ),
        "_aarch64": attr.label(default = "//cuda_rules:aarch64"),
        "_archs": attr.label(default = "//cuda_rules:archs"),
        "_compiler": attr.label(default = "//cuda_rules:compiler"),
        "_exec_platform": attr.label(default = "//cuda_rules:exec_platform"),
        "_shipped_archs": attr.label(default = "//cuda_rules:shipped_archs"),
        "_toolkit": attr.label(default = "//cuda_rules:toolkit"),
        "_version": attr.label(default = "//cuda_rules:version"),
    },
    provides = [CudaArchConfigInfo],
)
