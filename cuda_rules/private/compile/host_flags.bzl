"""The C++ toolchain's compile flags in a target's .cu stages: which stages each class of flag reaches, and the flags nvcc cannot take.

A `cc_library` compile of the same target gets the feature configuration's
C++ compile flags (compilation mode, sysroot, warnings, ...) followed by
--copt and --cxxopt (--host_copt/--host_cxxopt in the exec configuration,
where Bazel puts them in the same place). The .cu stages get the same flags,
each passed to nvcc with -Xcompiler, so nvcc puts them where it puts host
compiler options: into every host compiler command of its plan (the host
preprocess, each device preprocess, the host compile; nvcc's device link
gives them to the link stub's compile).

nvcc's device preprocess is what cicc compiles, so every flag there is in the
key of every device stage. CudaPlan therefore keeps only the flags that
change what device code is (DEVICE_FLAGS: include paths, defines, the sysroot
and C++ library selection, the dialect) in the device preprocess commands and
removes the rest (optimization, debug info, warnings, code generation: host
code only), so changing those re-runs host stages and reuses every device
stage. docs/cuda_library.md, "The C++ toolchain's flags", states the classes.
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load("@rules_cc//cc/common:cc_common.bzl", "cc_common")

visibility(["//cuda_rules/...", "//tests/..."])

# Flags of the C++ compile that the .cu stages do not get, and why (the
# docs list them; tests/cuda_library checks the list reaches no command).
_OUTPUTS = "nvcc's plan chooses each stage's outputs"
_DEPS = "a dependency file; each stage's inputs are declared"
_COVERAGE = "coverage of .cu files is not collected (no stage declares coverage notes files)"
_MODULES = "clang modules and layering checks cover the C++ rules' headers; a .cu file's are its declared inputs"
DROPPED = {
    "-c": _OUTPUTS,
    "-S": _OUTPUTS,
    "-E": _OUTPUTS,
    "-o": _OUTPUTS,
    "-x": "the rules choose the language (-x cu for C++ sources)",
    "-M": _DEPS,
    "-MM": _DEPS,
    "-MD": _DEPS,
    "-MMD": _DEPS,
    "-MF": _DEPS,
    "-MT": _DEPS,
    "-MQ": _DEPS,
    "-MP": _DEPS,
    "-MG": _DEPS,
    "-frandom-seed": "it names the C++ object; every stage output is reproducible without it",
    "-gsplit-dwarf": "it writes a .dwo file next to the object, which no stage declares",
    "--coverage": _COVERAGE,
    "-fprofile-arcs": _COVERAGE,
    "-ftest-coverage": _COVERAGE,
    "-fprofile-instr-generate": _COVERAGE,
    "-fcoverage-mapping": _COVERAGE,
    "-fmodules": _MODULES,
    "-fmodule-name": _MODULES,
    "-fmodule-map-file": _MODULES,
    "-fmodules-strict-decluse": _MODULES,
    "-fno-implicit-module-maps": _MODULES,
}

# Flags whose value is the next argument (the pair is classified together).
_PAIRED = [
    "-o",
    "-x",
    "-MF",
    "-MT",
    "-MQ",
    "-D",
    "-U",
    "-I",
    "-iquote",
    "-isystem",
    "-idirafter",
    "-include",
    "-imacros",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-cxx-isystem",
    "--sysroot",
    "-gcc-toolchain",
    "--gcc-toolchain",
    "-target",
    "-Xclang",
    "-Xpreprocessor",
]

# What device code is: flags (by name; `-D`/`-I`/`-B` also joined to their
# value) that the device preprocess keeps.
DEVICE_FLAGS = [
    "-D",
    "-U",
    "-I",
    "-iquote",
    "-isystem",
    "-idirafter",
    "-include",
    "-imacros",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-cxx-isystem",
    "--sysroot",
    "-gcc-toolchain",
    "--gcc-toolchain",
    "--gcc-install-dir",
    "-target",
    "--target",
    "-B",
    "-nostdinc",
    "-nostdinc++",
    "-nostdlibinc",
    "-stdlib",
    "-std",
    "-no-canonical-prefixes",
    "-fno-canonical-system-headers",
    "-ffile-prefix-map",
    "-fmacro-prefix-map",
    "-Wno-builtin-macro-redefined",
    "-Wbuiltin-macro-redefined",
    "-Xpreprocessor",
]

# Joined forms: -DNAME, -UNAME, -Idir, -Bdir.
_JOINED = ["-D", "-U", "-I", "-B"]

# Defines that only choose which of the C library's host functions are used
# (glibc's fortified variants, which need -O: the device preprocess, which
# gets no -O, would warn for each arch).
_HOST_ONLY_DEFINES = ["_FORTIFY_SOURCE"]

# -std values and nvcc's spelling of the same dialect.
_DIALECTS = {
    "98": "c++03",
    "03": "c++03",
    "0x": "c++11",
    "11": "c++11",
    "1y": "c++14",
    "14": "c++14",
    "1z": "c++17",
    "17": "c++17",
    "2a": "c++20",
    "20": "c++20",
    "2b": "c++23",
    "23": "c++23",
    "2c": "c++26",
    "26": "c++26",
}

def _name(flag):
    """The option name of a flag: -DX -> -D, --sysroot=x -> --sysroot, -O2 -> -O2."""
    for j in _JOINED:
        if flag.startswith(j) and flag != j:
            return j
    if flag.startswith("--") or flag.startswith("-f") or flag.startswith("-W") or flag.startswith("-std") or flag.startswith("-stdlib"):
        return flag.split("=", 1)[0]
    return flag

def _define_name(tokens):
    """NAME of a -D/-U flag (joined or paired), else None."""
    first = tokens[0]
    if first in ("-D", "-U"):
        value = tokens[1] if len(tokens) > 1 else ""
    elif first.startswith("-D") or first.startswith("-U"):
        value = first[2:]
    else:
        return None
    return value.split("=", 1)[0]

def _group(flags):
    """The flags as a list of token lists: a flag and, for _PAIRED flags, its value."""
    out = []
    i = 0
    for _ in range(len(flags)):
        if i >= len(flags):
            break
        flag = flags[i]
        if flag in _PAIRED and i + 1 < len(flags):
            out.append([flag, flags[i + 1]])
            i += 2
        else:
            out.append([flag])
            i += 1
    return out

def dialect(std_flag):
    """nvcc's spelling of a host compiler's C++ dialect.

    Args:
      std_flag: a -std=c++NN or -std=gnu++NN flag.

    Returns:
      "c++NN", or None when the flag names no C++ dialect.
    """
    value = std_flag.split("=", 1)[1] if "=" in std_flag else ""
    for prefix in ("c++", "gnu++"):
        if value.startswith(prefix):
            return _DIALECTS.get(value[len(prefix):])
    return None

def classify_host_flags(flags, *, nvcc_sets_std):
    """Sorts the C++ compile's flags into what the .cu stages get.

    Args:
      flags: list of string, the C++ compile's command line without the tool.
      nvcc_sets_std: whether the target's (or the build's) nvcc options choose -std
        themselves (then the toolchain's -std is left out: the target's wins, as in cc rules).

    Returns:
      struct(
        host = list of string: every flag the host stages get, in order (passed with -Xcompiler),
        device = list of string: those the device preprocess keeps (a subsequence of host),
        std = nvcc's -std value for the toolchain's dialect, or None,
        dropped = list of (flag, reason),
      ).
    """
    host = []
    device = []
    dropped = []
    std = None
    for tokens in _group(flags):
        flag = tokens[0]
        name = _name(flag)
        if flag == "-Xclang" and len(tokens) > 1:
            name = _name(tokens[1])
        why = DROPPED.get(name)
        if why == None and name.startswith("-fmodules"):
            why = _MODULES
        if why != None:
            dropped.append((" ".join(tokens), why))
            continue
        if name == "-std":
            nvcc_std = dialect(flag)
            if nvcc_sets_std:
                dropped.append((flag, "the target's own -std (copts) chooses the dialect"))
                continue
            if nvcc_std == None:
                # Not a C++ dialect nvcc knows: nvcc's own -std stays its default;
                # the host compiler gets the flag as given.
                host.append(flag)
                device.append(flag)
                continue
            std = nvcc_std
            if flag.split("=", 1)[1].startswith("gnu++"):
                # nvcc's -std=c++NN, then this: the host compiler's last -std wins.
                host.append(flag)
                device.append(flag)
            continue
        host.extend(tokens)
        if name in DEVICE_FLAGS and _define_name(tokens) not in _HOST_ONLY_DEFINES:
            device.extend(tokens)
    return struct(host = host, device = device, std = std, dropped = dropped)

def toolchain_compile_flags(ctx, cc_toolchain, feature_configuration = None):
    """The flags a cc_library compile of C++ in this target gets from the C++ toolchain and the command line.

    The feature configuration's C++ compile command line (compilation mode,
    sysroot, the toolchain's own flags) with --copt and --cxxopt as
    user_compile_flags, where cc rules put them (in the exec configuration
    Bazel gives these the --host_copt/--host_cxxopt values). No source, output,
    include paths or defines: the rules pass those themselves.

    Args:
      ctx: the rule context (its rule needs fragments = ["cpp"]).
      cc_toolchain: the C++ toolchain.
      feature_configuration: the target's, or None to configure it from ctx.features.

    Returns:
      list of string, without those --@rules_cuda_stages//cuda_rules:cc_host_compile_flags_to_skip
      names (when the rule has that attribute).
    """
    if feature_configuration == None:
        feature_configuration = cc_common.configure_features(
            ctx = ctx,
            cc_toolchain = cc_toolchain,
            requested_features = ctx.features,
            unsupported_features = ctx.disabled_features,
        )
    cpp = ctx.fragments.cpp
    variables = cc_common.create_compile_variables(
        cc_toolchain = cc_toolchain,
        feature_configuration = feature_configuration,
        user_compile_flags = cpp.copts + cpp.cxxopts,
    )
    flags = cc_common.get_memory_inefficient_command_line(
        feature_configuration = feature_configuration,
        action_name = ACTION_NAMES.cpp_compile,
        variables = variables,
    )

    # rules_cuda's --@rules_cuda_stages//cuda_rules:cc_host_compile_flags_to_skip:
    # flags of the C++ toolchain that nvcc's host compiler must not get.
    skip = getattr(ctx.attr, "_cc_host_compile_flags_to_skip", None)
    if skip:
        dropped = skip[BuildSettingInfo].value
        flags = [f for f in flags if f not in dropped]
    return flags

_SHELL_SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+./:@%^,"

def xcompiler(flag):
    """nvcc's -Xcompiler option that gives the host compiler exactly `flag`.

    nvcc splits -Xcompiler values at commas (`\\,` keeps one) and writes the
    value into a /bin/sh command line unquoted, so a flag with other characters
    (`-D__DATE__="redacted"`) is shell-quoted here.

    Args:
      flag: string.

    Returns:
      string.
    """
    value = flag.replace(",", "\\,")
    if flag and all([c in _SHELL_SAFE for c in flag.elems()]):
        return "-Xcompiler=" + value
    return "-Xcompiler='" + value.replace("'", "'\\''") + "'"
