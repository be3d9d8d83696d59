"""The stage graph of a staged compile and of a device link: the one table the rules, CudaPlan,
the runner and the reports share.

Each stage is one Bazel action (one shell script written by CudaPlan) with a
fixed mnemonic. It runs once per source, per virtual arch, per (virtual, real)
arch pair, per device link, or per real arch of a device link (its `scope`).
Its outputs live at fixed paths under the source's directory
(`_cuda/<target>/<source without extension>/`) or the device link's
(`_cuda_dlink/<target>/`), and it reads outputs of earlier stages (`reads`):
that is the graph the runner executes and the rules' actions follow.

The rules' side of this table, cuda_rules/private/stages.bzl, is generated
from it by gen_stages_bzl.py (`bazel run //tools/nvcc_plan:gen_stages_bzl`);
//tools/nvcc_plan:stages_bzl_test fails when the two differ. Every CudaPlan
run checks the layout the rules wrote against this table (layout.py), so
Starlark and Python cannot drift apart silently.
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
STUB_ARCH = "stub_arch"  # the virtual arch whose cicc writes the stub the host compile includes (nvcc's: the last)
LAST = "last"  # the last real arch of a device link

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
    kind: str
    mnemonic: str
    scope: str
    outputs: tuple
    reads: tuple = ()  # ((output key, selector), ...)
    device: bool = False  # its outputs are device code (what reuse reports count as "device stages")
    exec_group: str = ""  # the rule's exec group it runs in ("" = the default one)
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

COMPILE_STAGES = (
    Stage(
        "host_preprocess",
        "CudaHostPreprocess",
        SOURCE,
        outputs=(Output("cpp4", "{stem}.cpp4.ii"),),
        doc="the host compiler's -E for the host side (cudafe++'s input)",
    ),
    Stage(
        "frontend",
        "CudaFrontend",
        SOURCE,
        outputs=(Output("cudafe1_cpp", "{stem}.cudafe1.cpp"),),
        reads=(("cpp4", SAME), ("module_id", SAME)),
        doc="cudafe++: the host code with device code replaced by launch stubs",
    ),
    Stage(
        "device_preprocess",
        "CudaDevicePreprocess",
        VIRTUAL,
        outputs=(Output("cpp1", "{virtual}/{stem}.cpp1.ii"),),
        device=True,
        doc="the host compiler's -E for one virtual arch (cicc's input)",
    ),
    Stage(
        "cicc",
        "CudaCicc",
        VIRTUAL,
        outputs=(
            Output("ptx", "{virtual}/{stem}.ptx", lto_pattern="{virtual}/{stem}.ltoir"),
            Output("cicc_c", "{virtual}/{stem}.cudafe1.c"),
            Output("cicc_stub", "{virtual}/{stem}.cudafe1.stub.c"),
            Output("cicc_gpu", "{virtual}/{stem}.cudafe1.gpu"),
        ),
        reads=(("cpp1", SAME), ("module_id", SAME)),
        device=True,
        exec_group="cicc",
        doc="device code to PTX (or NVVM IR for an LTO arch), and the registration stub the host compile includes",
    ),
    Stage(
        "ptxas",
        "CudaPtxas",
        REAL,
        outputs=(Output("cubin", "{virtual}/{real}/{stem}.cubin"),),
        reads=(("ptx", SAME),),
        device=True,
        exec_group="ptxas",
        doc="PTX to a cubin for one real arch",
    ),
    Stage(
        "fatbinary",
        "CudaFatbinary",
        SOURCE,
        outputs=(Output("fatbin_c", "{stem}.fatbin.c"), Output("fatbin", "{stem}.fatbin")),
        reads=(("cubin", ALL), ("ptx", EMBEDDED)),
        doc="the cubins and embedded PTX packed into a fatbinary and its C form",
    ),
    Stage(
        "host_compile",
        "CudaHostCompile",
        SOURCE,
        outputs=(Output("host_obj", "{stem}.host.o"),),
        reads=(("cudafe1_cpp", SAME), ("cicc_stub", STUB_ARCH), ("fatbin_decl", SAME)),
        doc="the host code, compiled against a declaration of the fatbinary (no device code among its inputs)",
    ),
    Stage(
        "embed_fatbin",
        "CudaEmbedFatbin",
        SOURCE,
        outputs=(Output("obj", "{stem}.o"),),
        reads=(("host_obj", SAME), ("fatbin_c", SAME)),
        doc="the source's object: the host object linked (ld -r) with fatbinary's own embedded fatbinary",
    ),
)

LINK_STAGES = (
    Stage(
        "nvlink",
        "CudaDeviceLink",
        LINK_ARCH,
        outputs=(Output("cubin", "{arch}/{name}.cubin"), Output("reg_c", "{arch}/{name}.reg.c")),
        device=True,
        exec_group="dlink",
        doc="nvlink of one real arch over every relocatable source's code for it",
    ),
    Stage(
        "fatbinary",
        "CudaFatbinary",
        LINK,
        outputs=(Output("fatbin_c", "{name}.fatbin.c"), Output("fatbin", "{name}.fatbin")),
        reads=(("cubin", ALL),),
        doc="the linked cubins packed into a fatbinary",
    ),
    Stage(
        "link_stub",
        "CudaLinkStub",
        LINK,
        outputs=(Output("obj", "{name}.dlink.o"),),
        reads=(("fatbin_c", SAME), ("reg_c", LAST)),
        doc="crt/link.stub compiled with the linked fatbinary; registers every linked module",
    ),
)


def pipeline_mnemonics():
    """Every mnemonic these rules use, in pipeline order (for reports and tests)."""
    out = [PLAN_MNEMONIC]
    for stage in COMPILE_STAGES:
        if stage.mnemonic not in out:
            out.append(stage.mnemonic)
    out.append(UNSTAGED_MNEMONIC)
    for stage in LINK_STAGES:
        if stage.mnemonic not in out:
            out.append(stage.mnemonic)
    return out


def device_mnemonics():
    """Mnemonics of the stages that produce device code."""
    return sorted({s.mnemonic for s in COMPILE_STAGES + LINK_STAGES if s.device})


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


def compile_files(stem, archs):
    """{output key: path under the source's directory} of every stage output and CudaPlan output."""
    files = {o.key: output_path(o, {}, stem=stem) for o in PLAN_OUTPUTS}
    for stage in COMPILE_STAGES:
        for inst in instances(stage, archs):
            for o in stage.outputs:
                files[instance_key(o.key, inst)] = output_path(o, inst, stem=stem)
    return files


def compile_scripts(archs, rdc):
    """{stage key: script path under the source's directory}."""
    scripts = {}
    for stage in COMPILE_STAGES:
        for inst in instances(stage, archs):
            scripts[instance_key(stage.kind, inst)] = script_path(stage.kind, inst)
    if rdc:
        scripts[DEVICE_OBJECT_SCRIPT] = script_path(DEVICE_OBJECT_SCRIPT, {})
    return scripts


def link_files(name, link_archs):
    files = {o.key: output_path(o, {}, name=name) for o in LINK_PLAN_OUTPUTS}
    for stage in LINK_STAGES:
        for inst in instances(stage, link_archs=link_archs):
            for o in stage.outputs:
                files[instance_key(o.key, inst)] = output_path(o, inst, name=name)
    return files


def link_scripts(link_archs):
    scripts = {}
    for stage in LINK_STAGES:
        for inst in instances(stage, link_archs=link_archs):
            scripts[instance_key(stage.kind, inst)] = script_path(stage.kind, inst)
    return scripts


def stub_arch(archs):
    """The virtual arch whose cicc writes the registration stub the host compile includes: nvcc's, the last."""
    return archs[-1].virtual


def compile_producers(archs):
    """{output key: stage key of the stage that writes it} (CudaPlan's outputs excluded)."""
    producer = {}
    for stage in COMPILE_STAGES:
        for inst in instances(stage, archs):
            for o in stage.outputs:
                producer[instance_key(o.key, inst)] = instance_key(stage.kind, inst)
    return producer


def compile_reads(archs):
    """{stage key: [output keys it reads]}, CudaPlan's outputs (the module id) included."""
    reads = {}
    for stage in COMPILE_STAGES:
        for inst in instances(stage, archs):
            keys = []
            for out_key, selector in stage.reads:
                keys += [k for k in _read_keys(out_key, selector, inst, archs) if k not in keys]
            reads[instance_key(stage.kind, inst)] = keys
    return reads


def compile_dependencies(archs):
    """{stage key: [stage keys it reads from]}: the graph the runner executes (CudaPlan excluded)."""
    producer = compile_producers(archs)
    deps = {}
    for stage in COMPILE_STAGES:
        for inst in instances(stage, archs):
            keys = []
            for out_key, selector in stage.reads:
                for read in _read_keys(out_key, selector, inst, archs):
                    if read in producer and producer[read] not in keys:
                        keys.append(producer[read])
            deps[instance_key(stage.kind, inst)] = keys
    return deps


def _output_scope(out_key):
    if any(o.key == out_key for o in PLAN_OUTPUTS):
        return SOURCE
    for stage in COMPILE_STAGES:
        if any(o.key == out_key for o in stage.outputs):
            return stage.scope
    raise KeyError(out_key)


def _project(inst, scope):
    """The part of a reader's instance that names the instance of an output of `scope` it reads."""
    keep = {SOURCE: (), VIRTUAL: ("virtual",), REAL: ("virtual", "real")}[scope]
    return {k: inst[k] for k in keep}


def _read_keys(out_key, selector, inst, archs):
    scope = _output_scope(out_key)
    if selector == SAME:
        return [instance_key(out_key, _project(inst, scope))]
    if selector == ALL:
        return [instance_key(out_key, _project(i, scope)) for i in _scope_instances(scope, archs)]
    if selector == EMBEDDED:
        return [instance_key(out_key, {"virtual": a.virtual}) for a in archs if a.ptx or a.lto]
    if selector == STUB_ARCH:
        return [instance_key(out_key, {"virtual": stub_arch(archs)})]
    raise ValueError("selector %r of %s in a compile" % (selector, out_key))


def _scope_instances(scope, archs):
    if scope == SOURCE:
        return [{}]
    if scope == VIRTUAL:
        return [{"virtual": a.virtual} for a in archs]
    return [{"virtual": a.virtual, "real": r} for a in archs for r in a.reals]


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
for _stage in COMPILE_STAGES + LINK_STAGES:
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
