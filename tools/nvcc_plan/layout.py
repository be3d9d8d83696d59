"""The layouts the rules write for CudaPlan (plan/layout.json), as typed, validated structures.

cuda_library writes a CompileLayout per source (cuda_rules/private/compile/
source_in_stages.bzl) and a device link a LinkLayout (compile/device_link.bzl);
the runner (runner.py) builds a CompileLayout itself with
`compile_layout_for`. The dataclasses below are the one definition of a
layout's keys: the JSON keys are their fields' names (those marked
`_json(...)`), and the rules' side gets them from cuda_rules/private/stages.bzl
(COMPILE_LAYOUT_KEYS, LINK_LAYOUT_KEYS, ...), generated from here, so the rules
fail analysis when they write a key this file does not read.

Loading one checks every key and type, and that the files and scripts it
names are those the stage table gives the unit (stage_graph.py: the same code
the rules declared them with): their keys, not their paths, which the planner
takes as given.
"""

import dataclasses
import json
import os
import re

from tools.nvcc_plan import stage_graph
from tools.nvcc_plan import stages

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class LayoutError(Exception):
    """A layout that is malformed or disagrees with the stage table."""


# The JSON types of a layout's values (what `_require` checks).
STRING = "string"
BOOL = "bool"
STRINGS = "list of strings"
PATHS = "map of strings to strings"


def _json(json_type, **kwargs):
    """A field that is a key of the layout file: `json_type` is one of the types above, or a function
    (value, where) -> the field's value, for a structured value."""
    return dataclasses.field(metadata={"json": json_type}, **kwargs)


def json_keys(cls):
    """The layout file's keys of a layout dataclass, in field order."""
    return tuple(f.name for f in dataclasses.fields(cls) if "json" in f.metadata)


def _require(obj, key, json_type, where):
    if key not in obj:
        raise LayoutError("%s: missing key %r" % (where, key))
    value = obj[key]
    if json_type == STRING and not isinstance(value, str):
        raise LayoutError("%s: %r must be a string, not %r" % (where, key, value))
    if json_type == BOOL and not isinstance(value, bool):
        raise LayoutError("%s: %r must be true or false, not %r" % (where, key, value))
    if json_type == STRINGS and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise LayoutError("%s: %r must be a list of strings, not %r" % (where, key, value))
    if json_type == PATHS and not (isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())):
        raise LayoutError("%s: %r must map strings to strings" % (where, key))
    return value


def _check_keys(obj, allowed, where):
    extra = sorted(set(obj) - set(allowed))
    if extra:
        raise LayoutError("%s: unknown keys %s (a rules_cuda_stages of another version wrote it?)" % (where, extra))


def _from_json(cls, obj, where, entry=False):
    """An instance of the layout dataclass `cls` from its JSON object (an entry of a list, if `entry`), checked."""
    if not isinstance(obj, dict):
        raise LayoutError(("%s must be an object" if entry else "%s: not a JSON object") % where)
    _check_keys(obj, json_keys(cls), where)
    values = {}
    for f in dataclasses.fields(cls):
        json_type = f.metadata.get("json")
        if json_type is None:
            continue
        values[f.name] = json_type(obj.get(f.name), where) if callable(json_type) else _require(obj, f.name, json_type, where)
    return cls(**values)


def _to_json(value):
    if dataclasses.is_dataclass(value):
        return {f.name: _to_json(getattr(value, f.name)) for f in dataclasses.fields(value) if "json" in f.metadata}
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    return value


def _check_keys_of(where, what, given, expected):
    """`given` ({key: path}, as the rules declared it) must have exactly the keys of `expected`."""
    if sorted(given) != sorted(expected):
        missing = sorted(set(expected) - set(given))
        extra = sorted(set(given) - set(expected))
        raise LayoutError(
            "%s: the rules declared %s that the stage table (tools/nvcc_plan/stages.py) does not agree with: "
            "missing %s, unexpected %s. Regenerate cuda_rules/private/stages.bzl and stage_graph.bzl "
            "(bazel run //dev:update)." % (where, what, missing, extra)
        )


@dataclasses.dataclass(frozen=True)
class ArchEntry:
    """An entry of a compile layout's "archs": one virtual arch (stages.Arch), as the rules write it."""

    virtual: str = _json(STRING)
    reals: list = _json(STRINGS)
    ptx: bool = _json(BOOL)
    lto: bool = _json(BOOL)


def _archs_from_json(value, where):
    if not isinstance(value, list):
        raise LayoutError("%s: 'archs' must be a list" % where)
    out = []
    for i, a in enumerate(value):
        e = _from_json(ArchEntry, a, "%s: archs[%d]" % (where, i), entry=True)
        out.append(stages.Arch(virtual=e.virtual, reals=tuple(e.reals), ptx=e.ptx, lto=e.lto))
    return out


@dataclasses.dataclass
class CompileLayout:
    """What CudaPlan needs to turn nvcc's plan of one source into stage scripts."""

    label: str = _json(STRING)  # str(Label) of the target (the module id hashes it)
    display_label: str = _json(STRING)  # the target as users write it, for messages
    src: str = _json(STRING)  # the source as every stage names it (/proc/self/cwd/<execroot path>)
    src_short_path: str = _json(STRING)  # File.short_path of the source (the module id hashes it)
    stem: str = _json(STRING)
    directory: str = _json(STRING)  # the source's output directory (execroot-relative), or the runner's work dir
    toolkit_root: str = _json(STRING)  # the toolkit as every stage names it
    archs: list = _json(_archs_from_json)  # [stages.Arch], ArchEntry in the file
    rdc: bool = _json(BOOL)
    # For relocatable code: the hidden symbol every device link of the source defines, which its
    # object needs (a link without one fails naming target and source); "" for none (the runner).
    link_marker: str = _json(STRING)
    pinned_arch_list: str = _json(STRING)  # __CUDA_ARCH_LIST__ every stage gets instead of nvcc's, or ""
    user_options: list = _json(STRINGS)  # the target's nvcc options, for messages
    files: dict = _json(PATHS)  # output key -> path
    scripts: dict = _json(PATHS)  # stage key -> script path
    # The C++ toolchain's flags in nvcc's arguments (-Xcompiler, in order), and those of them the
    # device preprocess keeps (cuda_rules/private/compile/host_flags.bzl); none for the runner.
    host_toolchain_flags: list = _json(STRINGS, default_factory=list)
    device_toolchain_flags: list = _json(STRINGS, default_factory=list)
    # The stage table the rules declared the files of: "compile" (nvcc's) or "clang" (stages.COMPILE_TABLES).
    table: str = _json(STRING, default="compile")
    # Not in the file: the label the module id hashes when it is not `label` (the runner without a target: "").
    module_id_label: str = None

    @property
    def subject(self):
        """What the scripts' comments say they compile."""
        return self.src

    @property
    def id_label(self):
        return self.label if self.module_id_label is None else self.module_id_label

    @property
    def virtual_archs(self):
        return [a.virtual for a in self.archs]

    @property
    def real_keys(self):
        """["compute_80/sm_80", ...]: one per ptxas."""
        return ["%s/%s" % (a.virtual, r) for a in self.archs for r in a.reals]

    @property
    def registration_arch(self):
        """The arch whose cicc front end writes the registration stub (stage_graph.registration_arch)."""
        return stage_graph.registration_arch(self.archs, self.pinned_arch_list)

    @property
    def preprocessed_archs(self):
        """The archs the preprocess writes the device side for (stage_graph.preprocessed_archs)."""
        return stage_graph.preprocessed_archs(self.archs, self.pinned_arch_list)

    def graph(self):
        """The unit's graph (stage_graph.unit_graph): what the rules declared, as the table gives it."""
        return stage_graph.unit_graph(
            self.stage_table, virtuals=self.archs, stem=self.stem, registration=self.registration_arch, device_object=self.rdc,
            preprocessed=self.preprocessed_archs
        )

    @property
    def module_id_file(self):
        return self.files[stages.KEYS.module_id]

    @property
    def nvcc_args_file(self):
        return self.files[stages.KEYS.nvcc_args]

    @property
    def host_compile_iquote(self):
        """Where the host compile finds the stub and the fatbinary's declaration it #includes by bare name."""
        dirs = [os.path.dirname(self.files[stages.KEYS.registration_stub]), os.path.dirname(self.files[stages.KEYS.fatbin_decl])]
        return sorted(set(dirs), key=dirs.index)

    @property
    def registration_stub_name(self):
        """The name cudafe++ writes into the host code's #include of the stub."""
        return os.path.basename(self.files[stages.KEYS.registration_stub])

    @property
    def fatbin_c_name(self):
        """The name cicc writes into the stub's #include of the embedded fatbinary: its declaration's, for the host compile."""
        return os.path.basename(self.files[stages.KEYS.fatbin_decl])

    def to_json(self):
        out = _to_json(self)
        out["archs"] = [_to_json(ArchEntry(a.virtual, list(a.reals), a.ptx, a.lto)) for a in self.archs]
        return out

    def validate(self, where="layout"):
        if not self.archs:
            raise LayoutError("%s: no archs" % where)
        if self.link_marker and (not self.rdc or not _C_IDENTIFIER.fullmatch(self.link_marker)):
            raise LayoutError("%s: link_marker %r must be a C identifier, of relocatable code only" % (where, self.link_marker))
        if self.table not in stages.COMPILE_TABLES:
            raise LayoutError("%s: table %r is none of %s" % (where, self.table, sorted(stages.COMPILE_TABLES)))
        graph = self.graph()
        _check_keys_of(where, "files", self.files, graph["files"])
        _check_keys_of(where, "scripts", self.scripts, graph["scripts"])
        return self

    @property
    def stage_table(self):
        return stages.COMPILE_TABLES[self.table]


def compile_layout_from_json(obj, where="layout"):
    return _from_json(CompileLayout, obj, where).validate(where)


def compile_layout_for(source, *, directory, toolkit_root, archs, rdc, pinned_arch_list="", user_options=(), table="compile"):
    """The layout the rules would write for this source (the runner's: it lays its files out the same way).

    `source`: a SourceNames (what the module id and the messages name it by).
    """
    layout = CompileLayout(
        label=source.label,
        display_label=source.display_label,
        src=source.src,
        src_short_path=source.src_short_path,
        stem=source.stem,
        directory=directory,
        toolkit_root=toolkit_root,
        archs=list(archs),
        rdc=rdc,
        link_marker="",
        pinned_arch_list=pinned_arch_list,
        user_options=list(user_options),
        files={},
        scripts={},
        module_id_label=source.module_id_label,
        table=table,
    )
    graph = layout.graph()
    layout.files = {k: os.path.join(directory, v) for k, v in graph["files"].items()}
    layout.scripts = {k: os.path.join(directory, v) for k, v in graph["scripts"].items()}
    return layout.validate()


@dataclasses.dataclass(frozen=True)
class SourceNames:
    """What a source is called: the runner's counterpart of what the rules know of a target's source."""

    label: str  # str(Label), or what the runner was told
    display_label: str  # for messages
    src: str  # the source as every stage names it
    src_short_path: str  # what the module id hashes
    stem: str
    module_id_label: str = None  # the label the module id hashes, when not `label`


_LINK_INPUT_CODES = ("elf", "nvvm", "object")


@dataclasses.dataclass
class LinkInput:
    """One arch's relocatable device code of one source, as a device link reads it."""

    code: str = _json(STRING)  # elf (a relocatable cubin), nvvm (LTO IR) or object (a whole host object: staged = False)
    image: str = _json(STRING)  # the file
    script: str = _json(STRING)  # the source's device_object.sh ("" for kind object)
    name: str = _json(STRING)  # "<target> (<source>)", for messages


def _inputs_from_json(value, where):
    if not isinstance(value, dict):
        raise LayoutError("%s: 'inputs' must map archs to lists" % where)
    inputs = {}
    for arch, entries in value.items():
        if not isinstance(entries, list):
            raise LayoutError("%s: inputs[%r] must be a list" % (where, arch))
        inputs[arch] = []
        for i, e in enumerate(entries):
            w = "%s: inputs[%r][%d]" % (where, arch, i)
            entry = _from_json(LinkInput, e, w, entry=True)
            if entry.code not in _LINK_INPUT_CODES:
                raise LayoutError("%s: code %r is not elf, nvvm or object" % (w, entry.code))
            inputs[arch].append(entry)
    return inputs


def _markers_from_json(value, where):
    if not isinstance(value, list) or not all(
        isinstance(m, list) and len(m) == 2 and all(isinstance(s, str) and _C_IDENTIFIER.fullmatch(s) for s in m)
        for m in value
    ):
        raise LayoutError("%s: 'markers' must be a list of [symbol, symbol] (C identifiers)" % where)
    return value


@dataclasses.dataclass
class LinkLayout:
    """What CudaPlan needs to turn nvcc's device link plan into stage scripts."""

    label: str = _json(STRING)  # the target as users write it, for messages
    name: str = _json(STRING)  # the target's name (file names)
    directory: str = _json(STRING)
    toolkit_root: str = _json(STRING)
    archs: list = _json(STRINGS)  # [sm_NN], in arch order
    lto: bool = _json(BOOL)
    inputs: dict = _json(_inputs_from_json)  # sm_NN -> [LinkInput]
    # [[symbol a link without this device link lacks, symbol two device links of it define twice]]
    markers: list = _json(_markers_from_json)
    non_rdc: list = _json(STRINGS)  # labels of cuda_library targets below the link whose device code is not relocatable
    objects: list = _json(STRINGS)  # the host objects `nvcc -dlink` would read, in link order (fidelity checks)
    files: dict = _json(PATHS)
    scripts: dict = _json(PATHS)

    @property
    def nvcc_args_file(self):
        return self.files[stages.KEYS.nvcc_args]

    @property
    def display_label(self):
        return self.label

    @property
    def subject(self):
        """What the scripts' comments say they compile."""
        return "the device link"

    @property
    def stage_table(self):
        return stages.LINK_TABLE

    def graph(self):
        """The link's graph (stage_graph.unit_graph): what the rules declared, as the table gives it."""
        return stage_graph.unit_graph(stages.LINK_TABLE, link_archs=self.archs, name=self.name)

    def validate(self, where="layout"):
        if not self.archs:
            raise LayoutError("%s: no archs" % where)
        if sorted(self.inputs) != sorted(self.archs):
            raise LayoutError("%s: inputs are given for %s, the link is for %s" % (where, sorted(self.inputs), self.archs))
        graph = self.graph()
        _check_keys_of(where, "files", self.files, graph["files"])
        _check_keys_of(where, "scripts", self.scripts, graph["scripts"])
        return self


def link_layout_from_json(obj, where="layout"):
    return _from_json(LinkLayout, obj, where).validate(where)


# The keys of each kind of layout file, for the rules (cuda_rules/private/stages.bzl).
COMPILE_LAYOUT_KEYS = json_keys(CompileLayout)
ARCH_KEYS = json_keys(ArchEntry)
LINK_LAYOUT_KEYS = json_keys(LinkLayout)
LINK_INPUT_KEYS = json_keys(LinkInput)


def load_compile(path):
    """Reads and validates a source's layout file."""
    return compile_layout_from_json(_read(path), path)


def load_link(path):
    """Reads and validates a device link's layout file."""
    return link_layout_from_json(_read(path), path)


def _read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise LayoutError("cannot read layout %s: %s" % (path, e))
