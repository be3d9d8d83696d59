"""The nvcc options a target may not pass, and why: the rules set them, they cannot be staged, or the planner does not know them."""

load("//cuda_rules/private:nvcc_option_table.bzl", "FORWARD_UNKNOWN", "NVCC_OPTIONS", "NVCC_VERSIONS", "UNDOCUMENTED")

visibility(["//cuda_rules/...", "//tests/..."])

# nvcc options the rules set themselves or cannot map onto stages, with the fix.
# Prefix of reasons that hold only for staged compilation (one nvcc action
# would accept the option).
_STAGED_ONLY = "staged: "
_ARCH_FIX = "choose archs with the `archs` attribute or --@rules_cuda_stages//cuda_rules:archs"
_RDC_FIX = "set rdc = True on the target"
_DLINK_FIX = "cuda_binary / cuda_test device-link rdc code themselves (cc_binary: add a cuda_device_link to its deps)"
_UNSUPPORTED = {
    "-gencode": _ARCH_FIX,
    "--generate-code": _ARCH_FIX,
    "-arch": _ARCH_FIX,
    "--gpu-architecture": _ARCH_FIX,
    "-code": _ARCH_FIX,
    "--gpu-code": _ARCH_FIX,
    "-ccbin": "the host compiler is the C++ toolchain's compiler",
    "--compiler-bindir": "the host compiler is the C++ toolchain's compiler",
    "-rdc": _RDC_FIX,
    "--relocatable-device-code": _RDC_FIX,
    "-dc": _RDC_FIX,
    "--device-c": _RDC_FIX,
    "-dw": _RDC_FIX,
    "--device-w": _RDC_FIX,
    "-dlink": _DLINK_FIX,
    "--device-link": _DLINK_FIX,
    "-dlto": "choose LTO archs (lto_NN) in `archs` with rdc = True; binaries then device-link with -dlto",
    "--dlink-time-opt": "choose LTO archs (lto_NN) in `archs` with rdc = True; binaries then device-link with -dlto",
    "-Xnvlink": _DLINK_FIX,
    "-c": "the rules choose what each stage produces",
    "--compile": "the rules choose what each stage produces",
    "-o": "the rules choose what each stage produces",
    "--output-file": "the rules choose what each stage produces",
    "-odir": "the rules choose what each stage produces",
    "--output-directory": "the rules choose what each stage produces",
    "-E": "the rules choose what each stage produces",
    "--preprocess": "the rules choose what each stage produces",
    "-M": "the rules choose what each stage produces",
    "-MM": "the rules choose what each stage produces",
    "-MD": "the rules choose what each stage produces",
    "-MMD": "the rules choose what each stage produces",
    "-ptx": "use the `ptx` output group",
    "--ptx": "use the `ptx` output group",
    "-cubin": "use the `cubin` output group",
    "--cubin": "use the `cubin` output group",
    "-fatbin": "use the `fatbin` output group",
    "--fatbin": "use the `fatbin` output group",
    "-lib": "cuda_library makes the library",
    "--lib": "cuda_library makes the library",
    "-link": "link with cuda_binary / cc_binary",
    "--link": "link with cuda_binary / cc_binary",
    "-run": "run with bazel run",
    "--run": "run with bazel run",
    "-keep": "each stage's outputs are Bazel outputs already (output groups)",
    "--keep": "each stage's outputs are Bazel outputs already (output groups)",
    "-keep-dir": "each stage's outputs are Bazel outputs already (output groups)",
    "--keep-dir": "each stage's outputs are Bazel outputs already (output groups)",
    "-save-temps": "each stage's outputs are Bazel outputs already (output groups)",
    "--save-temps": "each stage's outputs are Bazel outputs already (output groups)",
    "-dryrun": "see `bazel run //tools/nvcc_plan -- <nvcc args>`",
    "--dryrun": "see `bazel run //tools/nvcc_plan -- <nvcc args>`",
    "-t": _STAGED_ONLY + "the stages already run in parallel as separate actions",
    "--threads": _STAGED_ONLY + "the stages already run in parallel as separate actions",
    "-cuda": "the rules choose what each stage produces",
    "--cuda": "the rules choose what each stage produces",
}

def _option_name(opt):
    name = opt.split("=", 1)[0]
    if name.startswith("-t") and name[2:].isdigit():
        return "-t"
    return name

# nvcc's language option: `-x cu` is what the rules pass for every C++ source
# already (and rules_cuda for every source), so it may stay; any other
# language would compile the sources without their device code.
_LANGUAGE = ["-x", "--x"]

def _language_value(options, i):
    """(value of the language option at options[i], index of the next option), or None if it is not one."""
    opt = options[i]
    for name in _LANGUAGE:
        if opt == name:
            return (options[i + 1] if i + 1 < len(options) else "", i + 2)
        if opt.startswith(name + "="):
            return (opt[len(name) + 1:], i + 1)
    return None

def check_nvcc_options(label, attr_name, options, staged):
    """Fails analysis if `options` holds an nvcc option the rules own or cannot stage.

    Args:
      label: the target, for the message.
      attr_name: where the options came from, for the message.
      options: list of strings.
      staged: whether the target is compiled in stages.
    """
    for i, opt in enumerate(options):
        language = _language_value(options, i)
        if language and language[0] != "cu":
            fail(("{label}: nvcc option '{opt}' in `{attr}` is not allowed: these rules compile every .cu and C++ " +
                  "source as CUDA (nvcc -x cu, as rules_cuda does){clang}, and another language would drop its device " +
                  "code. Fix: remove it; a source that must not go through nvcc belongs in a cc_library in deps.").format(
                label = label,
                opt = " ".join(options[i:language[1]]),
                attr = attr_name,
                clang = " ('cuda' is clang's name for it)" if language[0] == "cuda" else "",
            ))
        name = _option_name(opt)
        why = _UNSUPPORTED.get(name)
        if why == None:
            continue
        if why.startswith(_STAGED_ONLY):
            if not staged:
                continue
            fix = "Remove it, or set staged = False on this target to run nvcc as one action."
            why = why[len(_STAGED_ONLY):]
        else:
            fix = "Remove it."
        fail("{label}: nvcc option '{opt}' in `{attr}` is not allowed: {why}. {fix}".format(
            label = label,
            opt = opt,
            attr = attr_name,
            why = why,
            fix = fix,
        ))

# Options of a device link (rules_cuda's `linkopts` are nvcc -dlink options).
_DEVICE_LINK_OPTIONS = ["-Xnvlink", "--nvlink-options", "-dlto", "--dlink-time-opt", "-dlink", "--device-link"]

def check_link_options(label, linkopts):
    """Fails analysis if host linker options (linkopts) hold options of nvcc's device link.

    rules_cuda's `linkopts` are options of the device link; these rules follow
    the C++ rules (host linker options) and take device link options in `dlinkopts`.

    Args:
      label: the target, for the message.
      linkopts: list of strings.
    """
    for opt in linkopts:
        name = _option_name(opt)
        if name in _DEVICE_LINK_OPTIONS:
            fail(("{label}: '{opt}' in `linkopts` is an option of nvcc's device link, but `linkopts` (and " +
                  "`host_linkopts`) are the host linker's here, as in the C++ rules. Fix: move it to `dlinkopts` " +
                  "(rules_cuda's `linkopts` are device link options).").format(label = label, opt = opt))

def known_nvcc_options(version):
    """{option: takes a value} the planner knows for a CUDA version (every known version's for another one).

    Args:
      version: the toolkit's version, e.g. "13.0".

    Returns:
      A dict. tools/nvcc_plan/nvcc_options.py's table_options is the same.
    """
    known = {}
    for name, (takes_value, versions) in NVCC_OPTIONS.items():
        if version in NVCC_VERSIONS and version not in versions:
            continue
        known[name] = takes_value
    known.update(UNDOCUMENTED)
    return known

def unknown_options(options, known):
    """The options nvcc's planner would not know, as [[option, why]], in order.

    Mirrors tools/nvcc_plan/nvcc_options.py's unknown_options (both are checked
    on the same cases: //tests/cuda_library:nvcc_option_cases_test).

    Args:
      options: the words of a target's nvcc options.
      known: from known_nvcc_options.

    Returns:
      A list of [option, why].
    """
    for o in options:
        if o in FORWARD_UNKNOWN:
            return []
    out = []
    skip = False
    for i, option in enumerate(options):
        if skip:
            skip = False
            continue
        if not option.startswith("-") or option == "-":
            out.append([option, "not an option (nvcc would compile it as an input file)"])
            continue
        name, eq, _ = option.partition("=")
        if name in known:
            if known[name] and not eq:
                if i + 1 >= len(options):
                    out.append([option, "it needs a value"])
                skip = True  # its value
            elif not known[name] and eq:
                out.append([option, "it takes no value"])
            continue
        if not option.startswith("--") and len(option) > 2 and known.get(option[:2]):
            continue  # a one-letter option with its value attached: -O3, -DX, -I/x, -t4
        out.append([option, "not an nvcc option"])
    return out

def check_known_options(label, attr_name, options, version):
    """Fails analysis, in one line, for the first option the planner does not know (staged targets).

    Args:
      label: the target, for the message.
      attr_name: where the options came from, for the message.
      options: list of strings.
      version: the toolkit's version.
    """
    unknown = unknown_options(options, known_nvcc_options(version))
    if not unknown:
        return
    option, why = unknown[0]
    if why == "not an nvcc option":
        problem = "is not an option of CUDA {}'s nvcc".format(version)
    else:
        problem = "is not valid for CUDA {}'s nvcc: {}".format(version, why)
    fail(("{label}: '{option}' in `{attr}` {problem} (the planner knows the options `nvcc --help` lists for " +
          "CUDA {versions}, and -Xcudafe, -Xcicc, -Xfatbin). Fix: correct it (`nvcc --help`), give a host compiler " +
          "option to host_copts and a ptxas option to ptxasopts, or, for an option nvcc takes that the planner does " +
          "not know, set staged = False on the target.").format(
        label = label,
        option = option,
        attr = attr_name,
        problem = problem,
        versions = ", ".join(NVCC_VERSIONS),
    ))
