"""One cicc command of nvcc's plan as cicc's own two phases: the front end, then libnvvm.

cicc (CUDA 12.4, 13.0, 13.5) runs two phases in one process: its EDG front end
("lgenfe": the registration stub, .cudafe1.c, .cudafe1.gpu and the NVVM IR of
the device code), then libnvvm (libdevice linked in, optimization, PTX or LTO
IR). `cicc -lgenfe ...` and `cicc -libnvvm ...` run each one alone. The
planner does not use the split (below): libnvvm alone is not exact
(docs/internals.md, "The registration stub").

`split(argv, version, libdevice)` maps nvcc's cicc command to the two commands
cicc builds internally for it (read from the running process of cicc 12.4.131,
13.0.88 and 13.5.37 for each option below). An argument it has no rule for, a
CUDA version it was not read from, and device debug (-g: 12.4's and 13.0's PTX
then differ from the one-process cicc's) raise `Unsplit`: the caller keeps one
whole cicc.

Split compilation (`-split-compile N`, nvcc's --split-compile) is libnvvm's: the
front end refuses the option, and `cicc -libnvvm ... -split-compile=N` gives the
PTX of one cicc with `-split-compile N` on 12.4 and 13.0. 13.5's one cicc then
also drops unused internal globals that its libnvvm alone keeps, so 13.5 keeps
one whole cicc for it (docs/internals.md, "Split compilation"). The fidelity tests compare the PTX, LTO IR and stub made this way
with nvcc's own (//tests/fidelity).
"""

import re

# The versions whose cicc's internal commands this table was read from.
VERSIONS = ("12.4", "13.0", "13.5")


# The planner does not run any cicc as these two phases: libnvvm alone, reading
# the front end's NVVM IR from a file, compiles some of libdevice's functions
# (sinf, cosf, powf: their argument reduction) to other PTX than one cicc process
# does (CUDA 13.0.88; found by the fidelity fuzzer, tests/fidelity/fuzz,
# 2026-11-29; //tests/fidelity:libdevice_math_* checks the whole cicc's PTX).
# So the registration stub comes from the front end alone in CudaFrontend
# (compile_scripts.FRONT_END_ONLY) and every arch's CudaCicc, the stub's arch's
# included, runs the whole cicc on its preprocessed source. split() is kept,
# checked against the argv read from cicc (cicc_split_test), as the record of
# cicc's two phases for a split that can be shown exact; version_of() is the
# runner's.


class Unsplit(ValueError):
    """nvcc's cicc command has something the table has no rule for: run the whole cicc."""


# Front-end options that go through unchanged: {option: takes the next argument}.
_KEEP = {
    "--c++11": False,
    "--c++14": False,
    "--c++17": False,
    "--c++20": False,
    "--c++23": False,
    "--static-host-stub": False,
    "--device-hidden-visibility": False,
    "--display_error_number": False,
    "--allow_managed": False,
    "--extended-lambda": False,
    "--relaxed_constexpr": False,
    "--device-c": False,
    "--no-version-ident": False,
    "-tused": False,
    "--gen_div_approx_ftz": False,
    "--gen_div_approx_no_ftz": False,
    "--keep-device-functions": False,
    "--no_strict_cuda_error": False,
    "--orig_src_file_name": True,
    "--orig_src_path_name": True,
    "--include_file_name": True,
    "--module_id_file_name": True,
    "--gen_c_file_name": True,
    "--stub_file_name": True,
    "--gen_device_file_name": True,
    "--diag_suppress": True,
    "--diag_error": True,
    "--diag_warning": True,
    "--diag_remark": True,
}
# The versions whose libnvvm alone, given -split-compile=N, makes one split cicc's PTX.
SPLIT_COMPILE_VERSIONS = ("12.4", "13.0")
# Front-end options spelled one word with a value (--gnu_version=120200).
_KEEP_PREFIX = ("--gnu_version=", "--clang_version=")
_RENAME = {"-m64": "--m64", "-m32": "--m32", "-generate-line-info": "--generate-line-info"}
# nvcc's spelling -> libnvvm's, with cicc's default when nvcc gives none.
_MATH = (("-ftz", "-ftz", "0"), ("-prec_div", "-prec-div", "1"), ("-prec_sqrt", "-prec-sqrt", "1"), ("-fmad", "-fma", "1"))
_MATH_FLAGS = tuple(m[0] for m in _MATH)
_ARCH = re.compile(r"compute_([0-9]+)[af]?")


def version_of(argv):
    """"13.0" from a gcc command's -D__CUDACC_VER_MAJOR__=13 -D__CUDACC_VER_MINOR__=0, or None."""
    got = {}
    for a in argv:
        m = re.fullmatch(r"-D__CUDACC_VER_(MAJOR|MINOR)__=([0-9]+)", a)
        if m:
            got[m.group(1)] = m.group(2)
    if "MAJOR" in got and "MINOR" in got:
        return "%s.%s" % (got["MAJOR"], got["MINOR"])
    return None


def split(argv, version, libdevice, ir):
    """(front end, back end): argv lists that do what nvcc's cicc command `argv` does, through the file `ir`.

    The front end writes the stub, .cudafe1.c and .cudafe1.gpu where `argv`
    names them, and the NVVM IR to `ir`; the back end reads `ir` (a name ending
    in .bc: cicc chooses its input's kind by its extension) and writes the PTX
    (or, with -lto, the LTO IR) where `argv`'s -o names it.
    """
    if version not in VERSIONS:
        raise Unsplit("cicc's phases were read for CUDA %s only, not %s" % (", ".join(VERSIONS), version))
    if not ir.endswith(".bc"):
        raise ValueError("the NVVM IR's file name must end in .bc: %s" % ir)
    front, lib = [], []
    arch = source = out = maxreg = opt = threads = None
    math = {}
    flags = set()
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-arch", "-o", "-maxreg", "-split-compile"):
            if i + 1 >= len(argv):
                raise Unsplit("%s without a value" % a)
            value = argv[i + 1]
            if a == "-arch":
                arch = value
            elif a == "-o":
                out = value
            elif a == "-split-compile":
                if version not in SPLIT_COMPILE_VERSIONS:
                    raise Unsplit("-split-compile: CUDA %s's one cicc differs from its libnvvm alone" % version)
                threads = value
            else:
                maxreg = value
            i += 2
            continue
        name, _, value = a.partition("=")
        if name in _MATH_FLAGS and value:
            math[name] = value
            if name == "-fmad" and value == "1" and version == "13.5":
                front.append("--fmad")  # 13.5's front end contracts too
        elif a in ("-fast-math", "-lto", "--simt-only"):
            flags.add(a)
        elif re.fullmatch(r"-O[0-3]", a):
            opt = a[2:]
            front.append("--device-O=" + opt)
        elif a in _RENAME:
            front.append(_RENAME[a])
            flags.add(a)
        elif a in _KEEP:
            front.append(a)
            flags.add(a)
            if _KEEP[a]:
                if i + 1 >= len(argv):
                    raise Unsplit("%s without a value" % a)
                front.append(argv[i + 1])
                i += 1
        elif a.startswith(_KEEP_PREFIX):
            front.append(a)
        elif not a.startswith("-") and source is None and a.endswith(".ii"):
            source = a
        else:
            raise Unsplit("no rule for cicc's argument %r" % a)
        i += 1
    if arch is None or source is None or out is None:
        raise Unsplit("no -arch, input or -o in nvcc's cicc command")
    m = _ARCH.fullmatch(arch)
    if not m:
        raise Unsplit("no rule for the arch %r" % arch)
    number = int(m.group(1))

    if "--simt-only" in flags:
        front.append("--simt-only")
    if version != "12.4" and number < 100:
        front.append("--no-device-float128")
    front = [argv[0], "-lgenfe", "--emit-llvm-bc"] + front + ["--nv_arch", arch, source, "-o", ir]

    if version != "12.4":
        lib.append("-nvvm-version=" + ("nvvm70" if number < 100 else "nvvm-latest"))
    if "--device-c" in flags:
        lib.append("--device-c")
    lib += ["%s=%s" % (nv, math.get(flag, default)) for flag, nv, default in _MATH]
    if "-fast-math" in flags:
        lib.append("-fast-math")
    if maxreg is not None:
        lib.append("-maxreg=" + maxreg)
    if opt is not None:
        lib.append("-opt=" + opt)
    if "-generate-line-info" in flags:
        lib.append("-generate-line-info")
    if threads is not None:
        lib.append("-split-compile=" + threads)
    if "-lto" in flags:
        # libnvvm writes the LTO IR to -olto (libdevice joins at the device
        # link) and wants an -o it writes nothing to.
        lib += ["-gen-lto", "-olto", out]
        back = [argv[0], "-libnvvm"] + lib + ["-arch=" + arch, ir, "-o", out + ".unused"]
    else:
        back = [argv[0], "-libnvvm", "-nvvmir-library", libdevice] + lib + ["-arch=" + arch, ir, "-o", out]
    return front, back
