"""The stage table: every stage of a staged compile and of a device link, in one place.

The rules, CudaPlan, the runner and the reports all read this table; nothing
else states a stage's mnemonic, exec group, progress message, inputs or
outputs. Each stage is one Bazel action (one shell script written by CudaPlan)
that runs once per source, per virtual arch, per (virtual, real) arch pair,
per device link, or per real arch of a device link (its `scope`). Its outputs
live at fixed paths under the source's directory
(`_cuda/<target>/<source without extension>/`) or the device link's
(`_cuda_dlink/<target>/`); it reads outputs of earlier stages (`reads`), and
the source, the host compiler or toolkit files as its record says: that is
the graph the runner executes and the rules' actions follow.

The rules' side of this table, cuda_rules/private/stages.bzl, is generated
from it by gen_stages_bzl.py (`bazel run //dev:update` rewrites it;
//dev:update_test fails when the two differ). Every CudaPlan
run checks the layout the rules wrote against this table (layout.py), so
Starlark and Python cannot drift apart silently. Adding a stage:
ARCHITECTURE.md, "Adding a stage".
"""

import dataclasses
import re

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
STUB_ARCH = "stub_arch"  # only the instance of the registration stub's arch (stub_arch) reads it
NOT_STUB_ARCH = "not_stub_arch"  # SAME, but not in the instance of the registration stub's arch

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
    """

    key: str
    pattern: str
    lto_pattern: str = ""


@dataclasses.dataclass(frozen=True)
class Stage:
    """One stage: a row of the table, and all the rules and tools know of it.

    What one action of the stage reads is `reads` (outputs of earlier stages
    and of CudaPlan, by output key and selector), plus the source and the
    headers it may include (`source`), the C++ toolchain's files
    (`host_compiler`) and the CUDA toolchain's files it runs (`toolkit`: names
    of CudaToolchainInfo fields, each a File or a depset). The stage's action
    function (cuda_rules/private/actions/<kind>.bzl) adds what the record
    cannot say (a device link's inputs).
    """

    kind: str  # the stage's name: script names (plan/<kind>[.<arch>].sh), action functions, layout keys
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

HOST_PREPROCESS = Stage(
    kind="host_preprocess",
    mnemonic="CudaHostPreprocess",
    scope=SOURCE,
    outputs=(Output("cpp4", "{stem}.cpp4.ii"),),
    source=True,
    host_compiler=True,
    progress="Preprocessing host code of %{label}: %{output}",
    doc="the host compiler's -E for the host side (cudafe++'s input)",
)
FRONTEND = Stage(
    kind="frontend",
    mnemonic="CudaFrontend",
    scope=SOURCE,
    outputs=(Output("cudafe1_cpp", "{stem}.cudafe1.cpp"),),
    reads=(("cpp4", SAME), ("module_id", SAME)),
    toolkit=("cudafe",),
    progress="Splitting host code of %{label} (cudafe++): %{output}",
    doc="cudafe++: the host code with device code replaced by launch stubs",
)
REGISTRATION_STUB = Stage(
    kind="registration_stub",
    mnemonic="CudaRegistrationStub",
    scope=SOURCE,
    outputs=(
        Output("stub", "host/{stem}.cudafe1.stub.c"),
        # The stub arch's CudaCicc input: the front end's NVVM IR (that
        # CudaCicc runs cicc's back end alone), or, where nvcc's cicc command
        # cannot be split (cicc_split.py), the arch's preprocessed source.
        Output("stub_cicc_input", "host/{stem}.stub_arch_cicc_input"),
    ),
    reads=(("module_id", SAME),),
    source=True,
    host_compiler=True,
    toolkit=("cicc_files",),
    progress="Writing the registration stub of %{label} (cicc front end): %{output}",
    doc="the registration stub the host compile includes, from one fixed arch's device preprocess and cicc front end "
    "(whose NVVM IR that arch's CudaCicc compiles on), so the host compile waits for no optimizing cicc and its key holds no arch",
)
DEVICE_PREPROCESS = Stage(
    kind="device_preprocess",
    mnemonic="CudaDevicePreprocess",
    scope=VIRTUAL,
    outputs=(Output("cpp1", "{virtual}/{stem}.cpp1.ii"),),
    source=True,
    host_compiler=True,
    device=True,
    progress="Preprocessing device code of %{label} for {arch}: %{output}",
    doc="the host compiler's -E for one virtual arch (cicc's input)",
)
CICC = Stage(
    kind="cicc",
    mnemonic="CudaCicc",
    scope=VIRTUAL,
    outputs=(
        Output("ptx", "{virtual}/{stem}.ptx", lto_pattern="{virtual}/{stem}.ltoir"),
    ),
    # The stub arch's from CudaRegistrationStub, which ran its front end.
    reads=(("cpp1", NOT_STUB_ARCH), ("stub_cicc_input", STUB_ARCH), ("module_id", SAME)),
    toolkit=("cicc_files",),
    device=True,
    exec_group="cicc",
    progress="Compiling device code for {arch} (cicc): %{output}",
    doc="device code to PTX (or NVVM IR for an LTO arch); for the registration stub's arch, cicc's back end alone on the stub's front end's NVVM IR",
)
PTXAS = Stage(
    kind="ptxas",
    mnemonic="CudaPtxas",
    scope=REAL,
    outputs=(Output("cubin", "{virtual}/{real}/{stem}.cubin"),),
    reads=(("ptx", SAME),),
    toolkit=("ptxas",),
    device=True,
    exec_group="ptxas",
    progress="Assembling %{input} for {arch}",
    doc="PTX to a cubin for one real arch",
)
FATBINARY = Stage(
    kind="fatbinary",
    mnemonic="CudaFatbinary",
    scope=SOURCE,
    outputs=(Output("fatbin_c", "{stem}.fatbin.c"), Output("fatbin", "{stem}.fatbin")),
    reads=(("cubin", ALL), ("ptx", EMBEDDED)),
    toolkit=("fatbinary",),
    progress="Packing device code of %{label}: %{output}",
    doc="the cubins and embedded PTX packed into a fatbinary and its C form",
)
HOST_COMPILE = Stage(
    kind="host_compile",
    mnemonic="CudaHostCompile",
    scope=SOURCE,
    outputs=(Output("host_obj", "{stem}.host.o"),),
    reads=(("cudafe1_cpp", SAME), ("stub", SAME), ("fatbin_decl", SAME)),
    # crt/host_runtime.h's headers (the source's own are preprocessed into
    # cudafe++'s output already), and nvcc.profile: nvcc spells an include
    # directory <toolkit>/bin/../include, as in every gcc stage.
    toolkit=("host_compile_headers", "nvcc_files"),
    host_compiler=True,
    progress="Compiling host code of %{label}: %{output}",
    doc="the host code, compiled against a declaration of the fatbinary (no device code among its inputs)",
)
EMBED_FATBIN = Stage(
    kind="embed_fatbin",
    mnemonic="CudaEmbedFatbin",
    scope=SOURCE,
    outputs=(Output("obj", "{stem}.o"),),
    reads=(("host_obj", SAME), ("fatbin_c", SAME)),
    toolkit=("fatbin_header",),
    host_compiler=True,
    progress="Embedding device code of %{label}: %{output}",
    doc="the source's object: the host object linked (ld -r) with fatbinary's own embedded fatbinary",
)

COMPILE_STAGES = (HOST_PREPROCESS, FRONTEND, REGISTRATION_STUB, DEVICE_PREPROCESS, CICC, PTXAS, FATBINARY, HOST_COMPILE, EMBED_FATBIN)

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
    kind="clang_device",
    mnemonic="CudaClangDevice",
    scope=VIRTUAL,
    outputs=(Output("ptx", "{virtual}/{stem}.ptx"),),
    source=True,
    host_compiler=True,
    toolkit=("headers", "cicc_files"),
    device=True,
    exec_group="cicc",
    progress="Compiling device code of %{label} for {arch} (clang): %{output}",
    doc="clang's device compile for one GPU arch (-cc1 -triple nvptx64-nvidia-cuda): the whole source, to PTX",
)
CLANG_FATBINARY = Stage(
    kind="fatbinary",
    mnemonic="CudaFatbinary",
    scope=SOURCE,
    outputs=(Output("fatbin", "{stem}.fatbin"),),
    reads=(("cubin", ALL), ("ptx", EMBEDDED)),
    toolkit=("fatbinary",),
    progress="Packing device code of %{label}: %{output}",
    doc="the cubins and embedded PTX packed into the fatbinary clang's host compile embeds",
)
CLANG_HOST_COMPILE = Stage(
    kind="clang_host",
    mnemonic="CudaClangHost",
    scope=SOURCE,
    outputs=(Output("host_obj", "{stem}.host.o"),),
    source=True,
    host_compiler=True,
    toolkit=("headers",),
    progress="Compiling host code of %{label} (clang): %{output}",
    doc="clang's host compile (-cc1 -triple <host>) against an empty fatbinary: no device output among its inputs",
)
CLANG_EMBED = Stage(
    kind="clang_embed",
    mnemonic="CudaClangEmbed",
    scope=SOURCE,
    outputs=(Output("obj", "{stem}.o"),),
    reads=(("host_obj", SAME), ("fatbin", SAME)),
    progress="Embedding device code of %{label}: %{output}",
    doc="the source's object: the fatbinary spliced into the host object's .nv_fatbin section (elf_splice.py)",
)

CLANG_STAGES = (CLANG_DEVICE, PTXAS, CLANG_FATBINARY, CLANG_HOST_COMPILE, CLANG_EMBED)
# CudaPlan's files for a clang compile: the module id (clang's -cuid) and the driver call the scripts replay.
CLANG_PLAN_OUTPUTS = (
    Output("module_id", "{stem}.module_id"),
    Output("nvcc_args", "plan/clang_args.json"),
)

# --- A device link (cuda_device_link, cuda_library(rdc = True)) ----------------

NVLINK = Stage(
    kind="nvlink",
    mnemonic="CudaDeviceLink",
    scope=LINK_ARCH,
    outputs=(Output("cubin", "{arch}/{name}.cubin"), Output("reg_c", "{arch}/{name}.reg.c")),
    # Besides: every relocatable source's code for this arch and the script
    # that wraps it (actions/nvlink.bzl), and libNVVM for an LTO link.
    toolkit=("device_link_files", "headers"),
    host_compiler=True,
    device=True,
    exec_group="dlink",
    progress="Device-linking %{label} for {arch}",
    doc="nvlink of one real arch over every relocatable source's code for it",
)
LINK_FATBINARY = Stage(
    kind="fatbinary",
    mnemonic="CudaFatbinary",
    scope=LINK,
    outputs=(Output("fatbin_c", "{name}.fatbin.c"), Output("fatbin", "{name}.fatbin")),
    reads=(("cubin", ALL),),
    toolkit=("fatbinary",),
    progress="Packing device code of %{label}: %{output}",
    doc="the linked cubins packed into a fatbinary",
)
LINK_STUB = Stage(
    kind="link_stub",
    mnemonic="CudaLinkStub",
    scope=LINK,
    outputs=(Output("obj", "{name}.dlink.o"),),
    reads=(("fatbin_c", SAME), ("reg_c", LAST), ("markers", SAME)),
    toolkit=("device_link_files", "headers"),
    host_compiler=True,
    progress="Compiling the device link stub of %{label}",
    doc="crt/link.stub compiled with the linked fatbinary; registers every linked module",
)

LINK_STAGES = (NVLINK, LINK_FATBINARY, LINK_STUB)


@dataclasses.dataclass(frozen=True)
class Table:
    """A pipeline of stages: what the rules declare and register, CudaPlan writes scripts for, the runner runs.

    A compiler other than nvcc (clang's `-cc1` stages, say) is another table:
    the functions below take the table they apply.
    """

    name: str
    stages: tuple  # in pipeline order
    plan_outputs: tuple  # CudaPlan's files besides the scripts
    plan_scope: str  # what CudaPlan (and so its outputs) is per: SOURCE or LINK


COMPILE_TABLE = Table("compile", COMPILE_STAGES, PLAN_OUTPUTS, SOURCE)
LINK_TABLE = Table("link", LINK_STAGES, LINK_PLAN_OUTPUTS, LINK)
CLANG_TABLE = Table("clang", CLANG_STAGES, CLANG_PLAN_OUTPUTS, SOURCE)
# The compile tables by name (a layout names its table).
COMPILE_TABLES = {t.name: t for t in (COMPILE_TABLE, CLANG_TABLE)}


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


def mnemonic(kind, stages=COMPILE_STAGES):
    for stage in stages:
        if stage.kind == kind:
            return stage.mnemonic
    raise KeyError(kind)


# --- Instances, keys and paths -------------------------------------------------
# cuda_rules/private/layout.bzl spells the same in Starlark; layout.py checks
# every layout the rules write against these functions.


@dataclasses.dataclass(frozen=True)
class Arch:
    """One virtual arch of a compile and what is built from it."""

    virtual: str  # compute_NN
    reals: tuple = ()  # sm_NN cubins built from its PTX
    ptx: bool = False  # its PTX is embedded
    lto: bool = False  # its NVVM IR is kept for the device link (no PTX, no cubins)


def instances(stage, archs=(), link_archs=()):
    """The instances of `stage`: a list of dicts of placeholder values (virtual, real, arch, lto)."""
    if stage.scope in (SOURCE, LINK):
        return [{}]
    if stage.scope == VIRTUAL:
        return [{"virtual": a.virtual, "lto": a.lto} for a in archs]
    if stage.scope == REAL:
        return [{"virtual": a.virtual, "real": r, "lto": a.lto} for a in archs for r in a.reals]
    if stage.scope == LINK_ARCH:
        return [{"arch": a} for a in link_archs]
    raise ValueError("unknown scope %r" % stage.scope)


def _parts(inst):
    return [inst[k] for k in ("virtual", "real", "arch") if k in inst]


def instance_key(prefix, inst):
    """`prefix` plus the instance's archs: "cpp1/compute_80", "ptxas/compute_80/sm_80", "nvlink/sm_90"."""
    return "/".join([prefix] + _parts(inst))


def script_path(kind, inst):
    """Where CudaPlan writes a stage's script, under the source's (or link's) directory."""
    return "plan/%s.sh" % ".".join([kind] + _parts(inst))


def output_path(output, inst, stem="", name=""):
    pattern = output.lto_pattern if inst.get("lto") and output.lto_pattern else output.pattern
    return pattern.format(stem=stem, name=name, **{k: v for k, v in inst.items() if k != "lto"})


def _files(table, instances_of, names):
    files = {o.key: output_path(o, {}, **names) for o in table.plan_outputs}
    for stage in table.stages:
        for inst in instances_of(stage):
            for o in stage.outputs:
                files[instance_key(o.key, inst)] = output_path(o, inst, **names)
    return files


def _script_paths(table, instances_of):
    return {
        instance_key(stage.kind, inst): script_path(stage.kind, inst)
        for stage in table.stages
        for inst in instances_of(stage)
    }


def compile_files(stem, archs, table=COMPILE_TABLE):
    """{output key: path under the source's directory} of every stage output and CudaPlan output."""
    return _files(table, lambda stage: instances(stage, archs), {"stem": stem})


def compile_script_paths(archs, rdc, table=COMPILE_TABLE):
    """{stage key: script path under the source's directory}."""
    scripts = _script_paths(table, lambda stage: instances(stage, archs))
    if rdc:
        scripts[DEVICE_OBJECT_SCRIPT] = script_path(DEVICE_OBJECT_SCRIPT, {})
    return scripts


def link_files(name, link_archs, table=LINK_TABLE):
    """{output key: path under the device link's directory} of every stage output and CudaPlan output."""
    return _files(table, lambda stage: instances(stage, link_archs=link_archs), {"name": name})


def link_script_paths(link_archs, table=LINK_TABLE):
    """{stage key: script path under the device link's directory}."""
    return _script_paths(table, lambda stage: instances(stage, link_archs=link_archs))


def stub_arch(archs, pinned_arch_list=""):
    """The virtual arch whose front end writes the registration stub the host compile includes.

    nvcc's is the last virtual arch it compiles. For a build pinned to a
    shipped set (pinned_arch_list, e.g. "750,800,860,900"), the shipped set's
    last ("compute_90"), whichever of its archs the build compiles: the stub,
    and so the host compile, is then the same action in every build of the set
    or of a subset of it (docs/cuda_library.md, "The registration stub").
    """
    if pinned_arch_list:
        return "compute_%d" % (int(pinned_arch_list.split(",")[-1]) // 10)
    return archs[-1].virtual


def compile_producers(archs, table=COMPILE_TABLE):
    """{output key: stage key of the stage that writes it} (CudaPlan's outputs excluded)."""
    producer = {}
    for stage in table.stages:
        for inst in instances(stage, archs):
            for o in stage.outputs:
                producer[instance_key(o.key, inst)] = instance_key(stage.kind, inst)
    return producer


def read_keys(stage, inst, table, archs=(), link_archs=(), stub=None):
    """The output keys (of earlier stages and CudaPlan) one instance of `stage` reads, by its `reads` (in order, once each).

    `stub`: the registration stub's arch (stub_arch), for the STUB_ARCH selectors.
    """
    keys = []
    for out_key, selector in stage.reads:
        keys += [k for k in _read_keys(out_key, selector, inst, table, archs, link_archs, stub) if k not in keys]
    return keys


def compile_reads(archs, table=COMPILE_TABLE, stub=None):
    """{stage key: [output keys it reads]}, CudaPlan's outputs (the module id) included."""
    return {
        instance_key(stage.kind, inst): read_keys(stage, inst, table, archs, stub=stub)
        for stage in table.stages
        for inst in instances(stage, archs)
    }


def compile_dependencies(archs, table=COMPILE_TABLE, stub=None):
    """{stage key: [stage keys it reads from]}: the graph the runner executes (CudaPlan excluded)."""
    producer = compile_producers(archs, table)
    deps = {}
    for stage in table.stages:
        for inst in instances(stage, archs):
            keys = []
            for read in read_keys(stage, inst, table, archs, stub=stub):
                if read in producer and producer[read] not in keys:
                    keys.append(producer[read])
            deps[instance_key(stage.kind, inst)] = keys
    return deps


def _output_scope(out_key, table):
    if any(o.key == out_key for o in table.plan_outputs):
        return table.plan_scope
    for stage in table.stages:
        if any(o.key == out_key for o in stage.outputs):
            return stage.scope
    raise KeyError(out_key)


def _project(inst, scope):
    """The part of a reader's instance that names the instance of an output of `scope` it reads."""
    keep = {SOURCE: (), LINK: (), VIRTUAL: ("virtual",), REAL: ("virtual", "real"), LINK_ARCH: ("arch",)}[scope]
    return {k: inst[k] for k in keep}


def _read_keys(out_key, selector, inst, table, archs, link_archs, stub):
    scope = _output_scope(out_key, table)
    if selector == SAME:
        return [instance_key(out_key, _project(inst, scope))]
    if selector in (STUB_ARCH, NOT_STUB_ARCH):
        if (inst.get("virtual") == stub) == (selector == STUB_ARCH):
            return [instance_key(out_key, _project(inst, scope))]
        return []
    if selector == ALL:
        return [instance_key(out_key, _project(i, scope)) for i in _scope_instances(scope, archs, link_archs)]
    if selector == EMBEDDED:
        return [instance_key(out_key, {"virtual": a.virtual}) for a in archs if a.ptx or a.lto]
    if selector == LAST:
        return [instance_key(out_key, {"arch": link_archs[-1]})]
    raise ValueError("unknown selector %r of %s" % (selector, out_key))


def _scope_instances(scope, archs, link_archs):
    if scope in (SOURCE, LINK):
        return [{}]
    if scope == VIRTUAL:
        return [{"virtual": a.virtual} for a in archs]
    if scope == REAL:
        return [{"virtual": a.virtual, "real": r} for a in archs for r in a.reals]
    return [{"arch": a} for a in link_archs]


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
    for _o in _stage.outputs:
        for _p in filter(None, (_o.pattern, _o.lto_pattern)):
            _OUTPUT_RES.setdefault(_stage.mnemonic, []).append(_pattern_regex(_p))


def arch_of_output(mnemonic, path):
    """The arch a stage output belongs to (real arch if any, else virtual), or "-" for a per-source output."""
    for regex in _OUTPUT_RES.get(mnemonic, ()):
        m = regex.search(path)
        if m:
            groups = m.groupdict()
            return groups.get("real") or groups.get("arch") or groups.get("virtual") or "-"
    return "-"
