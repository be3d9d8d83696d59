"""The nvcc options the planner knows, and the check of a target's options against them.

nvcc's plan (`nvcc --dryrun`) is what CudaPlan turns into stages; an option
nvcc does not know fails that plan with nvcc's own message after the whole
command line. So the rules check a target's nvcc options at analysis against
what the planner knows: every option `nvcc --help` documents for the CUDA
versions in nvcc_options_table.py (generated from those toolkits' own help by
gen_nvcc_options.py, and checked against it by //dev:update_test), and
the few undocumented ones nvcc accepts that the planner handles
(UNDOCUMENTED). cuda_rules/private/nvcc_option_table.bzl is generated from
the same table and implements the same check (`unknown_options`, kept equal
by //tests/cuda_library:nvcc_option_cases_test over CASES).

`parse_help` also reads the archs a toolkit builds (the allowed values of
--gpu-code), which the toolkit repository reads the same way at fetch time.
"""

import re

# nvcc options that `nvcc --help` does not list but nvcc accepts (checked by
# nvcc_options_table_test with `nvcc --dryrun`), each passing options on to
# one tool of a stage the planner stages: {name: takes a value}.
UNDOCUMENTED = {
    "--cudafe-options": True,
    "-Xcudafe": True,
    "--cicc-options": True,
    "-Xcicc": True,
    "--fatbin-options": True,
    "-Xfatbin": True,
}

# With this option nvcc passes options it does not know to the host compiler.
FORWARD_UNKNOWN = ("--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler")

_OPTION_LINE = re.compile(r"^(--[A-Za-z0-9_+-]+)(.*)$")
_SHORT = re.compile(r"\((-[A-Za-z0-9_+-]+)\)\s*$")
_VALUE = re.compile(r"^\s*(<[^>]*>|\{[^}]*\}|\[[^\]]*\]|[A-Za-z][A-Za-z0-9_-]*,\.\.\.)")
_ALLOWED = re.compile(r"Allowed values for this option:(.*)")


def parse_help(text):
    """Reads `nvcc --help`: ({option spelling: takes a value}, [archs allowed for --gpu-code]).

    Every option has a line `--long-name [VALUE[,...]]   (-short)`, VALUE one
    of <what>, {a|b} or [a,b]; both spellings are returned.
    """
    options = {}
    archs = []
    current = None
    for line in text.splitlines():
        match = _OPTION_LINE.match(line)
        if match:
            name, rest = match.group(1), match.group(2)
            short = _SHORT.search(rest)
            takes_value = bool(_VALUE.match(rest))
            options[name] = takes_value
            if short:
                options[short.group(1)] = takes_value
            current = name
            continue
        allowed = _ALLOWED.search(line)
        if allowed and current == "--gpu-code":
            archs = _values(allowed.group(1))
        elif archs and current == "--gpu-code" and line.strip().startswith("'"):
            archs.extend(_values(line))
    return options, sorted(set(a for a in archs if re.match(r"^(sm|compute|lto)_[0-9]+[af]?$", a)))


def _values(text):
    return re.findall(r"'([^']*)'", text)


def table_options(table, version):
    """{option: takes a value} the planner knows for a CUDA version (all known versions' for another one)."""
    known = {}
    for name, (takes_value, versions) in table.OPTIONS.items():
        if version in table.VERSIONS and version not in versions:
            continue
        known[name] = takes_value
    for name, takes_value in UNDOCUMENTED.items():
        known[name] = takes_value
    return known


def unknown_options(options, known):
    """The options nvcc's planner would not know, as [(option, why)], in order.

    `options` are the words of a target's nvcc options (a value may be its own
    word: `-maxrregcount 32`, or attached: `-O3`, `-DX=1`, `-Xcompiler=-Wall`).
    Mirrors cuda_rules/private/nvcc_option_table.bzl's unknown_options.
    """
    if any(o in FORWARD_UNKNOWN for o in options):
        return []
    out = []
    i = 0
    while i < len(options):
        option = options[i]
        i += 1
        if not option.startswith("-") or option == "-":
            out.append((option, "not an option (nvcc would compile it as an input file)"))
            continue
        name, eq, _ = option.partition("=")
        if name in known:
            if known[name] and not eq:
                if i >= len(options):
                    out.append((option, "it needs a value"))
                i += 1  # its value
            elif not known[name] and eq:
                out.append((option, "it takes no value"))
            continue
        if not option.startswith("--") and len(option) > 2 and known.get(option[:2]):
            continue  # a one-letter option with its value attached: -O3, -DX, -I/x, -t4
        out.append((option, "not an nvcc option"))
    return out


# Options and the verdict both implementations must give (the Starlark copy
# checks the same cases: //tests/cuda_library:nvcc_option_cases_test).
CASES = [
    (["-O3", "-lineinfo", "--use_fast_math", "-use_fast_math"], []),
    (["-maxrregcount", "32", "-maxrregcount=32", "--maxrregcount=32"], []),
    (["-DX=1", "-D", "Y", "-I/include", "-Xcompiler=-Wall,-O2", "-Xcompiler", "-fPIC"], []),
    (["-std=c++17", "--std", "c++20", "-Werror=all-warnings", "--expt-relaxed-constexpr"], []),
    (["-Xcudafe", "--display_error_number", "-Xcicc=-O2", "-Xptxas=-v"], []),
    (["--foo"], [("--foo", "not an nvcc option")]),
    (["-ffast-math"], [("-ffast-math", "not an nvcc option")]),
    (["--use-fast-math"], [("--use-fast-math", "not an nvcc option")]),
    (["-lineinfo=1"], [("-lineinfo=1", "it takes no value")]),
    (["-maxrregcount"], [("-maxrregcount", "it needs a value")]),
    (["kernel.cu"], [("kernel.cu", "not an option (nvcc would compile it as an input file)")]),
    (["-forward-unknown-to-host-compiler", "-ffast-math"], []),
    (["-O3", "--bogus=1", "-G", "-ZZ"], [("--bogus=1", "not an nvcc option"), ("-ZZ", "not an nvcc option")]),
]
