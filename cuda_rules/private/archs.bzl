"""Parsing of arch strings: what device code a target gets."""

visibility(["//cuda_rules/...", "//tests/..."])

ACCEPTED_FORMS = """accepted forms:
  sm_80,sm_90a,compute_90        real archs (cubin each) and virtual archs (embedded PTX), comma-separated
  lto_80,lto_90                  LTO archs (NVVM IR, optimised and compiled at the device link; needs rdc = True)
  compute_80:sm_80,sm_86;compute_90:compute_90
                                 rules_cuda's form: per virtual arch, the codes built from it, groups separated by ';'
  sm_70,sm_75;sm_80,sm_86        rules_cuda's form without the virtual arch: each ';' group from its lowest arch
An arch is sm_NN, compute_NN or lto_NN, optionally with an a or f suffix (NN >= 50)."""

def _arch_number(name):
    digits = name.split("_", 1)[1]
    suffix = ""
    if digits and digits[-1] in ("a", "f"):
        suffix = digits[-1]
        digits = digits[:-1]
    return digits, suffix

def _check_arch(name, where):
    """Returns None if `name` is a valid arch, else an error message."""
    if name.count("_") != 1:
        return "'{}' in {} is not an arch".format(name, where)
    kind, _, _ = name.partition("_")
    if kind not in ("sm", "compute", "lto"):
        return "'{}' in {} is not an arch (must start with sm_, compute_ or lto_)".format(name, where)
    digits, _ = _arch_number(name)
    if not digits.isdigit() or len(digits) < 2 or int(digits) < 50:
        return "'{}' in {} is not an arch".format(name, where)
    return None

def arch_sort_key(arch):
    """Orders archs (compute_NN, sm_NN, lto_NN) by number, a suffixed arch after the plain one."""
    digits, suffix = _arch_number(arch)
    return int(digits) * 10 + (1 if suffix else 0)

def parse_archs(spec, where):
    """Parses an arch string.

    Args:
      spec: the string, e.g. "sm_80,sm_90a,compute_90" or "compute_80:sm_80,sm_86".
      where: what the string came from, for error messages (e.g. "//cuda_rules:archs of //pkg:t").

    Returns:
      A struct(virtuals = [struct(virtual, reals, ptx, lto)], error = None) sorted by arch
      (lto: the virtual arch's NVVM IR is kept for link-time optimisation),
      or struct(virtuals = [], error = message) when the string is invalid.
    """
    spec = spec.replace(" ", "")
    if not spec:
        return struct(virtuals = [], error = "no archs given in {}.\n{}".format(where, ACCEPTED_FORMS))
    groups = {}  # virtual -> struct fields

    def group(virtual):
        if virtual not in groups:
            groups[virtual] = {"reals": [], "ptx": False, "lto": False}
        return groups[virtual]

    if ":" in spec or ";" in spec:
        parts = []
        for part in spec.split(";"):
            if part and ":" not in part:
                # rules_cuda: a group without its virtual arch compiles from its lowest arch.
                names = part.split(",")
                bad = [n for n in names if _check_arch(n, where)]
                if bad:
                    return struct(virtuals = [], error = _check_arch(bad[0], where) + ".\n" + ACCEPTED_FORMS)
                lowest = sorted(names, key = arch_sort_key)[0]
                part = "compute_{}:{}".format(lowest.split("_", 1)[1], part)
            parts.append(part)
        for part in parts:
            if not part:
                return struct(virtuals = [], error = "empty arch group in '{}' ({}).\n{}".format(spec, where, ACCEPTED_FORMS))
            virtual, sep, codes = part.partition(":")
            if not sep or not codes:
                return struct(virtuals = [], error = "'{}' in {} is not virtual:codes.\n{}".format(part, where, ACCEPTED_FORMS))
            err = _check_arch(virtual, where)
            if err == None and not virtual.startswith("compute_"):
                err = "'{}' in {} must be a virtual arch (compute_NN) before ':'".format(virtual, where)
            if err:
                return struct(virtuals = [], error = err + ".\n" + ACCEPTED_FORMS)
            g = group(virtual)
            for code in codes.split(","):
                err = _check_arch(code, where)
                if err:
                    return struct(virtuals = [], error = err + ".\n" + ACCEPTED_FORMS)
                if code.startswith("compute_"):
                    if code != virtual:
                        return struct(virtuals = [], error = "'{}' in {}: PTX of {} cannot be embedded from {}.\n{}".format(code, where, code, virtual, ACCEPTED_FORMS))
                    g["ptx"] = True
                elif code.startswith("lto_"):
                    if code[len("lto_"):] != virtual[len("compute_"):]:
                        return struct(virtuals = [], error = "'{}' in {}: the NVVM IR of {} comes from {}, not {}.\n{}".format(code, where, code, "compute_" + code[len("lto_"):], virtual, ACCEPTED_FORMS))
                    g["lto"] = True
                elif code not in g["reals"]:
                    g["reals"].append(code)
    else:
        for name in spec.split(","):
            if not name:
                return struct(virtuals = [], error = "empty arch in '{}' ({}).\n{}".format(spec, where, ACCEPTED_FORMS))
            err = _check_arch(name, where)
            if err:
                return struct(virtuals = [], error = err + ".\n" + ACCEPTED_FORMS)
            if name.startswith("compute_"):
                group(name)["ptx"] = True
            elif name.startswith("lto_"):
                group("compute_" + name[len("lto_"):])["lto"] = True
            else:
                g = group("compute_" + name[len("sm_"):])
                if name not in g["reals"]:
                    g["reals"].append(name)
    virtuals = []
    for virtual in sorted(groups.keys(), key = arch_sort_key):
        g = groups[virtual]
        if g["lto"] and (g["reals"] or g["ptx"]):
            lto = "lto_" + virtual[len("compute_"):]
            return struct(virtuals = [], error = "{} in {} cannot be combined with {} from the same virtual arch: LTO code is compiled at the device link. Pick one.\n{}".format(
                lto,
                where,
                ", ".join(g["reals"] + ([virtual] if g["ptx"] else [])),
                ACCEPTED_FORMS,
            ))
        _, v_suffix = _arch_number(virtual)
        for real in g["reals"]:
            _, r_suffix = _arch_number(real)
            if (v_suffix or r_suffix) and real[len("sm_"):] != virtual[len("compute_"):]:
                return struct(virtuals = [], error = "{} in {} cannot be built from {}: arch-specific (a) and family (f) code needs the matching virtual arch ({}).\n{}".format(real, where, virtual, "compute_" + real[len("sm_"):], ACCEPTED_FORMS))
            if arch_sort_key(real) < arch_sort_key(virtual):
                return struct(virtuals = [], error = "{} in {} cannot be built from {} (a real arch needs a virtual arch at or below it).\n{}".format(real, where, virtual, ACCEPTED_FORMS))
        virtuals.append(struct(
            virtual = virtual,
            reals = sorted(g["reals"], key = arch_sort_key),
            ptx = g["ptx"],
            lto = g["lto"],
        ))
    return struct(virtuals = virtuals, error = None)

def lto_arch(virtual):
    """lto_NN for a virtual arch struct compute_NN of parse_archs."""
    return "lto_" + virtual.virtual[len("compute_"):]

def device_link_archs(archs):
    """The real archs a device link produces cubins for: every sm_NN and every lto_NN's sm_NN.

    Args:
      archs: a struct from parse_archs.

    Returns:
      A list of sm_NN strings in arch order.
    """
    out = []
    for v in archs.virtuals:
        for r in v.reals + (["sm_" + v.virtual[len("compute_"):]] if v.lto else []):
            if r not in out:
                out.append(r)
    return out

def gencode_flags(archs):
    """Returns nvcc's -gencode flags for a parsed arch set.

    Args:
      archs: a struct from parse_archs.

    Returns:
      A list of strings, one -gencode flag per virtual arch, in arch order.
    """
    flags = []
    for v in archs.virtuals:
        codes = list(v.reals)
        if v.ptx:
            codes.append(v.virtual)
        if v.lto:
            codes.append(lto_arch(v))
        flags.append("-gencode=arch={},code=[{}]".format(v.virtual, ",".join(codes)))
    return flags

def arch_list_number(virtual):
    """The number a virtual arch has in __CUDA_ARCH_LIST__ (compute_90a -> 900)."""
    digits, _ = _arch_number(virtual)
    return int(digits) * 10

def arch_list(archs):
    """The __CUDA_ARCH_LIST__ value nvcc defines for a parsed arch set, e.g. "750,800,860,900"."""
    return ",".join([str(n) for n in sorted({arch_list_number(v.virtual): True for v in archs.virtuals}.keys())])

def outside_shipped(archs, shipped):
    """The virtual archs of `archs` that the shipped set does not compile.

    Args:
      archs: a struct from parse_archs: what is compiled.
      shipped: a struct from parse_archs: the shipped set.

    Returns:
      A list of virtual arch names (compute_NN), empty when every virtual arch
      compiled is one the shipped set compiles too.
    """
    have = [v.virtual for v in shipped.virtuals]
    return [v.virtual for v in archs.virtuals if v.virtual not in have]

def pinned_arch_list(archs, shipped):
    """The __CUDA_ARCH_LIST__ every stage of a staged compile of `archs` gets.

    Every virtual arch compiled is one the shipped set compiles: the shipped
    set's list, so each stage's command is the one a build of the whole
    shipped set runs (and can be served from its cache). Otherwise "": nvcc's
    own list, that of the compiled archs.

    Args:
      archs: a struct from parse_archs: what is compiled.
      shipped: a struct from parse_archs: the shipped set.

    Returns:
      A string, e.g. "750,800,860,900", or "".
    """
    if outside_shipped(archs, shipped):
        return ""
    return arch_list(shipped)

def _number(arch):
    digits, _ = _arch_number(arch)
    return int(digits)

def unsupported_archs(archs, supported):
    """The archs of a parsed set that a toolkit does not build, spelled as in the set.

    Args:
      archs: a struct from parse_archs.
      supported: the archs the toolkit builds (CudaToolchainInfo.supported_archs); empty: unknown.

    Returns:
      A list of arch names (sm_NN, compute_NN, lto_NN), empty when all are built or nothing is known.
    """
    if not supported:
        return []
    out = []
    for v in archs.virtuals:
        missing = [r for r in v.reals if r not in supported]
        if v.ptx and v.virtual not in supported:
            missing.append(v.virtual)
        if v.lto and lto_arch(v) not in supported:
            missing.append(lto_arch(v))
        if not missing and v.virtual not in supported:
            missing.append(v.virtual)  # reals it builds, but not from this virtual arch
        out.extend([m for m in missing if m not in out])
    return out

def toolkit_archs_error(label, archs, origin, version, supported):
    """The one-line message for archs the selected toolkit does not build, or None.

    Args:
      label: the target, for the message.
      archs: a struct from parse_archs.
      origin: where the archs come from (the attribute, the build setting, the shipped set).
      version: the toolkit's version.
      supported: CudaToolchainInfo.supported_archs.

    Returns:
      A string or None.
    """
    missing = unsupported_archs(archs, supported)
    if not missing:
        return None
    reals = sorted([_number(a) for a in supported if a.startswith("sm_")])
    builds = "sm_{} to sm_{}".format(reals[0], reals[-1]) if reals else ", ".join(supported)
    return ("{label}: {archs} ({origin}) {verb} not built by CUDA {version}, whose nvcc builds {builds} " +
            "(`nvcc --list-gpu-code`; a and f variants: `nvcc --help`). Fix: choose archs CUDA {version} builds, " +
            "or select a CUDA version that builds {archs} with --@rules_cuda_stages//cuda_rules:toolkit " +
            "(docs/toolkits.md).").format(
        label = label,
        archs = ", ".join(missing),
        origin = origin,
        verb = "is" if len(missing) == 1 else "are",
        version = version,
        builds = builds,
    )
