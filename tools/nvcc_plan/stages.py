"""The stage table: every stage of a staged compile and of a device link, in one place.

The rules, CudaPlan, the runner and the reports all read this table; nothing
else states a stage's mnemonic, exec group, progress message, inputs,
outputs or where nvcc's plan has its command. Each stage is one Bazel action
(one shell script written by CudaPlan) that runs once per source, per virtual
arch, per (virtual, real) arch pair, per device link, or per real arch of a
device link (its `scope`). Its outputs live at fixed paths under the source's
directory (`_cuda/<target>/<source without extension>/`) or the device link's
(`_cuda_dlink/<target>/`); it reads outputs of earlier stages (`reads`), and
the source, the host compiler or toolkit files as its record says.

stage_graph.py applies a table to one source or device link (its actions,
files and what each reads), in code both the rules and the tools run. The
rules' side of this file, cuda_rules/private/stages.bzl, is generated from it
by gen_stages_bzl.py (`bazel run //dev:update` rewrites it; //dev:update_test
fails when the two differ). Adding a stage: ARCHITECTURE.md, "Adding a stage".
"""

import dataclasses
import re
import types

# Scopes: what one action of a stage is per.
SOURCE = "source"  # one per .cu file
VIRTUAL = "virtual"  # one per virtual arch (compute_NN) of a source
REAL = "real"  # one per (virtual arch, real arch) pair of a source
LINK = "link"  # one per device link
LINK_ARCH = "link_arch"  # one per real arch (sm_NN) of a device link

# Selectors of `reads`: which instances of the producing output a stage reads.
SAME = "same"  # the output of the same arch (or the source-scope output)
ALL = "all"  # every instance
EMBEDDED = "embedded"  # the virtual archs whose PTX (or LTO IR) the fatbinary embeds
LAST = "last"  # the last real arch of a device link
REGISTRATION_ARCH = "registration_arch"  # only the instance of the registration stub's arch reads it
NOT_REGISTRATION_ARCH = "not_registration_arch"  # SAME, but not in the instance of the registration stub's arch
OF_REGISTRATION_ARCH = "of_registration_arch"  # the registration stub's arch's instance (of a per-arch output)

# The steps of nvcc's plan (dryrun.classify) and clang's (clang_dryrun): the
# commands a stage's script is made from (a record's `step`).
STEP_HOST_CPP = "host_cpp"  # the host compiler's -E of the host side
STEP_DEVICE_CPP = "device_cpp"  # the host compiler's -E for one virtual arch (-D__CUDA_ARCH__)
STEP_CUDAFE = "cudafe++"
STEP_CICC = "cicc"
STEP_PTXAS = "ptxas"
STEP_FATBINARY = "fatbinary"
STEP_HOST_CC = "host_cc"  # the host compiler's -c of cudafe++'s output
STEP_NVLINK = "nvlink"
STEP_LINK_STUB_CC = "link_stub_cc"  # the host compiler's -c of crt/link.stub (nvcc -dlink)
STEP_CLANG_DEVICE = "clang_device"  # clang -cc1 -triple nvptx64-nvidia-cuda
STEP_CLANG_HOST = "clang_host"  # clang -cc1 -triple <host> with the fatbinary
STEP_CLEANUP = "cleanup"  # nvcc's removal of a temporary file
STEP_UNKNOWN = "unknown"  # a command these tools do not know

# How a step's command names a file besides its own outputs (a record's `names`).
PATH = "path"  # the declared file (an output key), by its path
BASENAME = "basename"  # the declared file, by its name alone (it is #included from an -iquote directory)
TEMPORARY = "temporary"  # a file nothing reads, in the script's temporary directory (by that name)
# How a step's command names an output (Output.named_by): its output file, or the value of a flag.
STEP_OUTPUT = "output"

# The action hooks of the rules (cuda_rules/private/actions/hooks.bzl): what an
# action reads beyond its record (a record's `hook`).
LINK_INPUTS = "link_inputs"  # every linked source's code for the arch, and its device_object script
SPLICE_TOOL = "splice_tool"  # the tool that splices the fatbinary into clang's object
PTX_CHECK = "ptx_check"  # ptxas, for an arch whose PTX is embedded with no cubin of its own (nvcc's PTX check)

# The two actions that are not stages of the table: nvcc's plan turned into
# the stage scripts (one per source or device link), and the escape hatch
# that runs nvcc as one action per source (staged = False).
PLAN_MNEMONIC = "CudaPlan"
UNSTAGED_MNEMONIC = "CudaCompile"

# The object file name cuda_device_link plans `nvcc -dlink` with; CudaPlan
# replaces it with each arch's wrapped device code.
DEVICE_LINK_PLACEHOLDER = "__rules_cuda_stages_device_code.o"


@dataclasses.dataclass(frozen=True)
class Output:
    """One file a stage writes: `key` in the layout, `pattern` under the source's (or link's) directory.

    Placeholders: {stem} (the source's file name without extension), {name}
    (a device link's target name), {virtual} (compute_NN), {real} and {arch}
    (sm_NN). `lto_pattern`, if set, is the path for an LTO virtual arch.
    `named_by`: where the stage's step writes it (STEP_OUTPUT: the command's
    output file; else the flag whose value it is), so the planner renames it
    to the declared file; "" for a file the planner's script writes itself.
    `scope`: VIRTUAL for a source-scope stage's output per arch (one file per
    arch the unit preprocesses: stage_graph.preprocessed_archs), written by
    the command of the stage's `sub_step`; "" for the stage's own scope.
    """

    key: str
    pattern: str
    lto_pattern: str = ""
    named_by: str = ""
    scope: str = ""


@dataclasses.dataclass(frozen=True)
class Stage:
    """One stage: a row of the table, and all the rules and tools know of it.

    The rules: what one action of the stage reads is `reads` (outputs of
    earlier stages and of CudaPlan, by output key and selector), plus the
    source and the headers it may include (`source`), the C++ toolchain's
    files (`host_compiler`) and the CUDA toolchain's files it runs (`toolkit`:
    names of CudaToolchainInfo fields, each a File or a depset); a `hook` adds
    what the record cannot say (a device link's inputs). Every action is
    run_stage's (cuda_rules/private/actions/stage.bzl).

    The planner: the script comes from nvcc's (or clang's) command of `step`,
    its files renamed to the declared ones (each Output's `named_by`, and
    `names`), with the shipped set's __CUDA_ARCH_LIST__ if `pin_arch_list`,
    the host compiler's hints if `hints`; a stage whose script needs more
    (CudaPlan's special cases) has a planner function of its own
    (compile_scripts.PLANNER, link_scripts.PLANNER). The runner orders ready
    stages by `weight`.
    """

    mnemonic: str  # Bazel's mnemonic, fixed: users route and match on it (--strategy=CudaPtxas=remote)
    scope: str
    outputs: tuple
    reads: tuple = ()  # ((output key, selector), ...)
    source: bool = False
    host_compiler: bool = False
    toolkit: tuple = ()
    device: bool = False  # its outputs are device code (what reuse reports count as "device stages")
    exec_group: str = ""  # the rule's exec group it runs in ("" = the default one)
    progress: str = ""  # Bazel's progress message: %{label}, %{input}, %{output}, and {arch}: the instance's arch
    doc: str = ""
    hook: str = ""  # the rules' action hook (LINK_INPUTS, SPLICE_TOOL, PTX_CHECK), "" for none
    script: str = ""  # its scripts' name (plan/<script>[.<arch>].sh) where it is not the stage's name
    step: str = ""  # the plan's step its script is made from, "" for a script the planner writes itself
    sub_step: str = ""  # a per-arch step its script also runs, once per arch its per-arch outputs are for
    names: tuple = ()  # ((flag, PATH|BASENAME|TEMPORARY, output key or temporary name), ...) in the step's command
    pin_arch_list: bool = False  # its command defines __CUDA_ARCH_LIST__, pinned to the shipped set's
    hints: bool = False  # the script ends a failure with the host compiler's known hints
    weight: float = 1.0  # typical seconds of one action (2 cores, a CUB source): the runner's scheduling order
    # The first CUDA version whose nvcc gives this stage's tool --split-compile's
    # threads ("" = none does): its action then runs that many threads, and says so
    # to Bazel (resource_set) and to the runner's -j.
    split_compile: str = ""
    # Split compilation only for archs below this number ("" = every arch): from
    # compute_100 on (their cicc runs the newer NVVM, nvvm-latest), CUDA 13.0's
    # cicc -split-compile N writes one of two PTX files from one input, run to run
    # (measured 2026-11-29: ext_lambda.cu at sm_100 and sm_120, N = 0, 2, 4: 2 of
    # 6 and 3 of 6 runs differ; sm_90: 6 of 6 equal; ptxas's: equal). A staged
    # build must be reproducible, so those archs' cicc runs without it.
    split_compile_below_arch: str = ""

    @property
    def name(self):
        """The stage's name, from its mnemonic: CudaHostCompile -> host_compile (layout keys, scripts)."""
        return re.sub(r"(?<!^)([A-Z])", r"_\1", self.mnemonic[len("Cuda") :]).lower()

    @property
    def script_name(self):
        return self.script or self.name

    @property
    def steps(self):
        """The plan's steps its script runs: `step`, and `sub_step` once per arch."""
        return tuple(s for s in (self.step, self.sub_step) if s)


# Files of a source that no stage script writes: CudaPlan's own outputs.
PLAN_OUTPUTS = (
    Output("module_id", "{stem}.module_id"),
    Output("nvcc_args", "plan/nvcc_args.json"),
    # What the host compile includes in place of the fatbinary: a declaration
    # of the fatbinary's wrapper, named from the module id (compile_scripts.py).
    Output("fatbin_decl", "host/{stem}.fatbin.c"),
)
LINK_PLAN_OUTPUTS = (
    Output("nvcc_args", "plan/nvcc_args.json"),
    # Symbols the link stub defines for each source it links, so that a link
    # missing a device link, or with two of one source, names it (link_scripts.py).
    Output("markers", "plan/markers.h"),
)
# The layout the rules write for CudaPlan (an input of it, not an output).
LAYOUT = "plan/layout.json"
# A script CudaPlan writes for relocatable sources only: it wraps one arch's
# device code as nvcc's objects carry it, for the device link (not a stage).
DEVICE_OBJECT_SCRIPT = "device_object"

# --- One .cu file compiled in stages (cuda_library, cuda_objects) ---------------

PREPROCESS = Stage(
    mnemonic="CudaPreprocess",
    scope=SOURCE,
    outputs=(
        Output("cpp4", "{stem}.cpp4.ii", named_by=STEP_OUTPUT),
        # One per arch it preprocesses: in a build of the shipped set or a subset
        # of it, every arch of the set, so that the action is CI's in every such build.
        Output("cpp1", "{virtual}/{stem}.cpp1.ii", named_by=STEP_OUTPUT, scope=VIRTUAL),
    ),
    source=True,
    host_compiler=True,
    progress="Preprocessing %{label}: %{output}",
    doc="the host compiler's -E of the host side (cudafe++'s input) and of each arch's device side (cicc's): the one "
    "action per source that reads its headers, for every arch of the shipped set in a build of (a subset of) it",
    step=STEP_HOST_CPP,
    sub_step=STEP_DEVICE_CPP,
    pin_arch_list=True,
    hints=True,
    weight=1.5,
)
FRONTEND = Stage(
    mnemonic="CudaFrontend",
    scope=SOURCE,
    outputs=(
        Output("cudafe1_cpp", "{stem}.cudafe1.cpp", named_by=STEP_OUTPUT),
        # The registration stub the host compile includes, from one fixed arch's
        # cicc front end (the host code #includes it by name).
        Output("registration_stub", "host/{stem}.cudafe1.stub.c"),
    ),
    reads=(("cpp4", SAME), ("cpp1", OF_REGISTRATION_ARCH), ("module_id", SAME)),
    toolkit=("cudafe", "cicc_files"),
    progress="Splitting host code of %{label} (cudafe++, cicc front end): %{output}",
    doc="the host side of a source, both front ends at once: cudafe++ (the host code with device code replaced by "
    "launch stubs) and the registration stub it includes, from one fixed arch's cicc front end on that arch's "
    "preprocessed source (the front end alone), so the host compile waits for no "
    "optimizing cicc and its key holds no arch",
    step=STEP_CUDAFE,
    # The module id is CudaPlan's file; the host code #includes the registration stub by name.
    names=(("--module_id_file_name", PATH, "module_id"), ("--stub_file_name", BASENAME, "registration_stub")),
    weight=2.8,
)
CICC = Stage(
    mnemonic="CudaCicc",
    scope=VIRTUAL,
    outputs=(
        Output("ptx", "{virtual}/{stem}.ptx", lto_pattern="{virtual}/{stem}.ltoir", named_by="-o"),
    ),
    # The registration arch's too: its front end runs again here (cicc_split.py says why).
    reads=(("cpp1", SAME), ("module_id", SAME)),
    toolkit=("cicc_files",),
    # An arch whose PTX is embedded with no cubin of its own: nvcc checks the PTX with
    # ptxas (dryrun.is_ptx_check), and so does this stage (the PTX_CHECK hook adds ptxas).
    hook=PTX_CHECK,
    device=True,
    exec_group="cicc",
    progress="Compiling device code for {arch} (cicc): %{output}",
    doc="device code to PTX (or NVVM IR for an LTO arch)",
    step=STEP_CICC,
    split_compile="12.4",
    split_compile_below_arch="100",
    # The front end's other outputs: read by nothing (the host compile's stub
    # is CudaFrontend's). The stub #includes the fatbinary's C form by name.
    names=(
        ("--gen_c_file_name", TEMPORARY, "cicc.cudafe1.c"),
        ("--stub_file_name", TEMPORARY, "cicc.cudafe1.stub.c"),
        ("--gen_device_file_name", TEMPORARY, "cicc.cudafe1.gpu"),
        ("--include_file_name", BASENAME, "fatbin_decl"),
    ),
    weight=1.9,
)
PTXAS = Stage(
    mnemonic="CudaPtxas",
    scope=REAL,
    outputs=(Output("cubin", "{virtual}/{real}/{stem}.cubin", named_by=STEP_OUTPUT),),
    reads=(("ptx", SAME),),
    toolkit=("ptxas",),
    device=True,
    exec_group="ptxas",
    progress="Assembling %{input} for {arch}",
    doc="PTX to a cubin for one real arch",
    step=STEP_PTXAS,
    split_compile="13.0",  # 12.4's nvcc gives ptxas no -split-compile
    weight=0.05,
)
HOST_COMPILE = Stage(
    mnemonic="CudaHostCompile",
    scope=SOURCE,
    outputs=(Output("host_obj", "{stem}.host.o", named_by=STEP_OUTPUT),),
    reads=(("cudafe1_cpp", SAME), ("registration_stub", SAME), ("fatbin_decl", SAME)),
    # crt/host_runtime.h's headers (the source's own are preprocessed into
    # cudafe++'s output already), and nvcc.profile: nvcc spells an include
    # directory <toolkit>/bin/../include, as in every gcc stage.
    toolkit=("host_compile_headers", "nvcc_files"),
    host_compiler=True,
    progress="Compiling host code of %{label}: %{output}",
    doc="the host code, compiled against a declaration of the fatbinary (no device code among its inputs)",
    step=STEP_HOST_CC,
    pin_arch_list=True,
    hints=True,
    weight=1.9,
)
EMBED_FATBIN = Stage(
    mnemonic="CudaEmbedFatbin",
    scope=SOURCE,
    # The fatbinary's C form (what nvcc's host compile includes) is the
    # script's temporary file: it is compiled here and read by nothing else.
    outputs=(Output("obj", "{stem}.o"), Output("fatbin", "{stem}.fatbin")),
    reads=(("cubin", ALL), ("ptx", EMBEDDED), ("host_obj", SAME)),
    toolkit=("fatbinary", "fatbin_header"),
    host_compiler=True,
    progress="Embedding device code of %{label}: %{output}",
    doc="fatbinary packs the cubins and embedded PTX, its C form is compiled and linked (ld -r) with the host object: "
    "the source's object, and the fatbinary itself",
    step=STEP_FATBINARY,
    weight=0.06,
)

COMPILE_STAGES = (PREPROCESS, FRONTEND, CICC, PTXAS, HOST_COMPILE, EMBED_FATBIN)

# --- One .cu file compiled in stages by clang (//cuda_rules:compiler=clang) ----
# clang's own plan (`clang -###`, clang_scripts.py): per GPU arch one device
# `clang -cc1` (the whole source parsed for the device, to PTX) and one ptxas
# (the same PTXAS record as nvcc's: clang's ptxas command for the same file);
# per source the fatbinary and the host `clang -cc1`, given an empty
# fatbinary so that it reads no device output, then the real one spliced into
# its .nv_fatbin section (byte-identical to clang's own object). clang
# has no virtual/real split: a virtual arch compute_NN is clang's GPU arch
# sm_NN, and its only real arch is that sm_NN (the rules refuse others).

CLANG_DEVICE = Stage(
    mnemonic="CudaClangDevice",
    scope=VIRTUAL,
    outputs=(Output("ptx", "{virtual}/{stem}.ptx", named_by=STEP_OUTPUT),),
    source=True,
    host_compiler=True,
    toolkit=("headers", "cicc_files"),
    device=True,
    exec_group="cicc",
    progress="Compiling device code of %{label} for {arch} (clang): %{output}",
    doc="clang's device compile for one GPU arch (-cc1 -triple nvptx64-nvidia-cuda): the whole source, to PTX",
    step=STEP_CLANG_DEVICE,
)
CLANG_FATBINARY = Stage(
    mnemonic="CudaFatbinary",
    scope=SOURCE,
    outputs=(Output("fatbin", "{stem}.fatbin", named_by=STEP_OUTPUT),),
    reads=(("cubin", ALL), ("ptx", EMBEDDED)),
    toolkit=("fatbinary",),
    progress="Packing device code of %{label}: %{output}",
    doc="the cubins and embedded PTX packed into the fatbinary clang's host compile embeds",
    step=STEP_FATBINARY,
)
CLANG_HOST_COMPILE = Stage(
    mnemonic="CudaClangHost",
    scope=SOURCE,
    outputs=(Output("host_obj", "{stem}.host.o", named_by=STEP_OUTPUT),),
    source=True,
    host_compiler=True,
    toolkit=("headers",),
    progress="Compiling host code of %{label} (clang): %{output}",
    doc="clang's host compile (-cc1 -triple <host>) against an empty fatbinary: no device output among its inputs",
    step=STEP_CLANG_HOST,
)
CLANG_EMBED = Stage(
    mnemonic="CudaClangEmbed",
    scope=SOURCE,
    outputs=(Output("obj", "{stem}.o"),),
    reads=(("host_obj", SAME), ("fatbin", SAME)),
    progress="Embedding device code of %{label}: %{output}",
    doc="the source's object: the fatbinary spliced into the host object's .nv_fatbin section (elf_splice.py)",
    hook=SPLICE_TOOL,
)

CLANG_STAGES = (CLANG_DEVICE, PTXAS, CLANG_FATBINARY, CLANG_HOST_COMPILE, CLANG_EMBED)
# CudaPlan's files for a clang compile: the module id (clang's -cuid) and the driver call the scripts replay.
CLANG_PLAN_OUTPUTS = (
    Output("module_id", "{stem}.module_id"),
    Output("nvcc_args", "plan/clang_args.json"),
)

# --- A device link (cuda_device_link, cuda_library(rdc = True)) ----------------

DEVICE_LINK = Stage(
    mnemonic="CudaDeviceLink",
    scope=LINK_ARCH,
    # nvcc names every arch's registration code alike: elsewhere its name is the
    # last arch's (the link stub reads that), in each nvlink command its own.
    outputs=(
        Output("cubin", "{arch}/{name}.cubin", named_by=STEP_OUTPUT),
        Output("reg_c", "{arch}/{name}.reg.c", named_by="--register-link-binaries"),
    ),
    # Besides: every relocatable source's code for this arch and the script
    # that wraps it (the LINK_INPUTS hook), and libNVVM for an LTO link.
    toolkit=("device_link_files", "headers"),
    host_compiler=True,
    device=True,
    exec_group="dlink",
    progress="Device-linking %{label} for {arch}",
    doc="nvlink of one real arch over every relocatable source's code for it",
    hook=LINK_INPUTS,
    # Its scripts' name since the first release: renaming them would change every device link's action key.
    script="nvlink",
    step=STEP_NVLINK,
)
LINK_FATBINARY = Stage(
    mnemonic="CudaFatbinary",
    scope=LINK,
    outputs=(Output("fatbin_c", "{name}.fatbin.c", named_by=STEP_OUTPUT), Output("fatbin", "{name}.fatbin")),
    reads=(("cubin", ALL),),
    toolkit=("fatbinary",),
    progress="Packing device code of %{label}: %{output}",
    doc="the linked cubins packed into a fatbinary",
    step=STEP_FATBINARY,
)
LINK_STUB = Stage(
    mnemonic="CudaLinkStub",
    scope=LINK,
    outputs=(Output("obj", "{name}.dlink.o", named_by=STEP_OUTPUT),),
    reads=(("fatbin_c", SAME), ("reg_c", LAST), ("markers", SAME)),
    toolkit=("device_link_files", "headers"),
    host_compiler=True,
    progress="Compiling the device link stub of %{label}",
    doc="crt/link.stub compiled with the linked fatbinary; registers every linked module",
    step=STEP_LINK_STUB_CC,
    hints=True,
)

LINK_STAGES = (DEVICE_LINK, LINK_FATBINARY, LINK_STUB)


@dataclasses.dataclass(frozen=True)
class Table:
    """A pipeline of stages: what the rules declare and register, CudaPlan writes scripts for, the runner runs.

    A compiler other than nvcc (clang's `-cc1` stages, say) is another table;
    stage_graph.py applies a table to a source or a device link.
    """

    name: str
    stages: tuple  # in pipeline order
    plan_outputs: tuple  # CudaPlan's files besides the scripts
    plan_scope: str  # what CudaPlan (and so its outputs) is per: SOURCE or LINK
    # The outputs the rule returns (the object, the device code): with what
    # other stages read, they decide which stage instances a unit has.
    products: tuple = ()


COMPILE_TABLE = Table("compile", COMPILE_STAGES, PLAN_OUTPUTS, SOURCE, products=("obj", "ptx", "cubin", "fatbin"))
LINK_TABLE = Table("link", LINK_STAGES, LINK_PLAN_OUTPUTS, LINK, products=("obj", "cubin", "fatbin", "reg_c"))
CLANG_TABLE = Table("clang", CLANG_STAGES, CLANG_PLAN_OUTPUTS, SOURCE, products=("obj", "ptx", "cubin", "fatbin"))
# The compile tables by name (a layout names its table).
COMPILE_TABLES = {t.name: t for t in (COMPILE_TABLE, CLANG_TABLE)}


def _output_keys():
    keys = {}
    for table in (COMPILE_TABLE, CLANG_TABLE, LINK_TABLE):
        for o in table.plan_outputs + tuple(o for s in table.stages for o in s.outputs):
            keys[o.key] = o.key
    return dict(sorted(keys.items()))


# Every output key of the tables, for code that names one: KEYS.obj, KEYS.ptx
# (a key no table has fails where it is named, not where it is looked up).
KEYS = types.SimpleNamespace(**_output_keys())


def exec_groups(table):
    """The exec groups the stages of `table` run in, in table order (each rule declares those of its tables)."""
    out = []
    for stage in table:
        if stage.exec_group and stage.exec_group not in out:
            out.append(stage.exec_group)
    return out


def pipeline_mnemonics():
    """Every mnemonic these rules use, in pipeline order (for reports and tests)."""
    out = [PLAN_MNEMONIC]
    for stage in COMPILE_STAGES:
        if stage.mnemonic not in out:
            out.append(stage.mnemonic)
    out.append(UNSTAGED_MNEMONIC)
    for stage in CLANG_STAGES + LINK_STAGES:
        if stage.mnemonic not in out:
            out.append(stage.mnemonic)
    return out


def device_mnemonics(of=COMPILE_STAGES + CLANG_STAGES + LINK_STAGES):
    """Mnemonics of the stages (of `of`: a table's stages; default all tables') that produce device code, sorted."""
    return sorted({s.mnemonic for s in of if s.device})


def step_mnemonics():
    """{step of a plan: the mnemonic of the stage its command becomes} (reports of nvcc's plan)."""
    out = {}
    for stage in COMPILE_STAGES + CLANG_STAGES + LINK_STAGES:
        for step in stage.steps:
            out.setdefault(step, stage.mnemonic)
    return out


@dataclasses.dataclass(frozen=True)
class Arch:
    """One virtual arch of a compile and what is built from it."""

    virtual: str  # compute_NN
    reals: tuple = ()  # sm_NN cubins built from its PTX
    ptx: bool = False  # its PTX is embedded
    lto: bool = False  # its NVVM IR is kept for the device link (no PTX, no cubins)


# --- Reading stage outputs back (reports) -------------------------------------

_PLACEHOLDER_RE = {
    "stem": r"[^/]+",
    "name": r"[^/]+",
    "virtual": r"(?P<virtual>compute_[0-9]+[af]?)",
    "real": r"(?P<real>sm_[0-9]+[af]?)",
    "arch": r"(?P<arch>sm_[0-9]+[af]?)",
}


def _pattern_regex(pattern):
    out = ""
    for literal, field, _, _ in _formatter_parse(pattern):
        out += re.escape(literal)
        if field is not None:
            out += _PLACEHOLDER_RE[field]
    return re.compile("/" + out + "$")


def _formatter_parse(pattern):
    import string

    return string.Formatter().parse(pattern)


_OUTPUT_RES = {}
for _stage in COMPILE_STAGES + CLANG_STAGES + LINK_STAGES:
    # A source-scope stage's per-arch outputs (CudaPreprocess's) do not make its action an arch's.
    for _o in (o for o in _stage.outputs if not (o.scope and _stage.scope == SOURCE)):
        for _p in filter(None, (_o.pattern, _o.lto_pattern)):
            _OUTPUT_RES.setdefault(_stage.mnemonic, []).append(_pattern_regex(_p))


def splits_for_arch(stage, arch):
    """Whether the stage's tool gets split compilation for `arch` (e.g. "compute_100"), by its split_compile_below_arch."""
    if not stage.split_compile_below_arch:
        return True
    number = re.search(r"[0-9]+", arch or "")
    return number is None or int(number.group(0)) < int(stage.split_compile_below_arch)


def arch_of_output(mnemonic, path):
    """The arch a stage output belongs to (real arch if any, else virtual), or "-" for a per-source output."""
    for regex in _OUTPUT_RES.get(mnemonic, ()):
        m = regex.search(path)
        if m:
            groups = m.groupdict()
            return groups.get("real") or groups.get("arch") or groups.get("virtual") or "-"
    return "-"
