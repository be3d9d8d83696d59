"""The layouts the rules write for CudaPlan (plan/layout.json), as typed, validated structures.

cuda_library writes a CompileLayout per source (cuda_rules/private/compile/
staged.bzl) and cuda_device_link a LinkLayout; the runner (run_plan.py) builds
a CompileLayout itself with `compile_layout_for`. Loading one checks every
key and type, and checks the files and scripts it names against the stage
table (stages.py): the paths the rules declared must be exactly the ones the
table gives, so the Starlark and Python sides of the table cannot differ
without every CudaPlan action saying so.
"""

import dataclasses
import json
import os
import re

from tools.nvcc_plan import stages


class LayoutError(Exception):
    """A layout that is malformed or disagrees with the stage table."""


def _require(obj, key, kind, where):
    if key not in obj:
        raise LayoutError("%s: missing key %r" % (where, key))
    value = obj[key]
    if kind is str and not isinstance(value, str):
        raise LayoutError("%s: %r must be a string, not %r" % (where, key, value))
    if kind is bool and not isinstance(value, bool):
        raise LayoutError("%s: %r must be true or false, not %r" % (where, key, value))
    if kind is list and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise LayoutError("%s: %r must be a list of strings, not %r" % (where, key, value))
    if kind is dict and not (isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())):
        raise LayoutError("%s: %r must map strings to strings" % (where, key))
    return value


def _check_keys(obj, allowed, where):
    extra = sorted(set(obj) - set(allowed))
    if extra:
        raise LayoutError("%s: unknown keys %s (a rules_cuda_stages of another version wrote it?)" % (where, extra))


def _check_paths(where, what, given, directory, relative):
    """`given` must name exactly the keys of `relative`, each at directory/relative[key]."""
    if sorted(given) != sorted(relative):
        missing = sorted(set(relative) - set(given))
        extra = sorted(set(given) - set(relative))
        raise LayoutError(
            "%s: the rules declared %s that the stage table (tools/nvcc_plan/stages.py) does not agree with: "
            "missing %s, unexpected %s. Regenerate cuda_rules/private/stages.bzl "
            "(bazel run //tools/nvcc_plan:gen_stages_bzl)." % (where, what, missing, extra)
        )
    for key, rel in relative.items():
        if given[key] != os.path.join(directory, rel):
            raise LayoutError(
                "%s: %s %r is %s, the stage table says %s" % (where, what, key, given[key], os.path.join(directory, rel))
            )


@dataclasses.dataclass
class CompileLayout:
    """What CudaPlan needs to turn nvcc's plan of one source into stage scripts."""

    label: str  # str(Label) of the target (the module id hashes it)
    display_label: str  # the target as users write it, for messages
    src: str  # the source as every stage names it (/proc/self/cwd/<execroot path>)
    src_short_path: str  # File.short_path of the source (the module id hashes it)
    stem: str
    directory: str  # the source's output directory (execroot-relative), or the runner's work dir
    toolkit_root: str  # the toolkit as every stage names it
    archs: list  # [stages.Arch]
    rdc: bool
    # For relocatable code: the hidden symbol every device link of the source defines, which its
    # object needs (a link without one fails naming target and source); "" for none (the runner).
    link_marker: str
    pinned_arch_list: str  # __CUDA_ARCH_LIST__ every stage gets instead of nvcc's, or ""
    user_options: list  # the target's nvcc options, for messages
    files: dict  # output key -> path
    scripts: dict  # stage key -> script path
    # The label the module id hashes when it is not `label` (the runner without a target: "").
    module_id_label: str = None
    # The C++ toolchain's flags in nvcc's arguments (-Xcompiler, in order), and those of them the
    # device preprocess keeps (cuda_rules/private/compile/host_flags.bzl); none for the runner.
    host_toolchain_flags: list = dataclasses.field(default_factory=list)
    device_toolchain_flags: list = dataclasses.field(default_factory=list)

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
    def stub_arch(self):
        return stages.stub_arch(self.archs)

    @property
    def module_id_file(self):
        return self.files["module_id"]

    @property
    def nvcc_args_file(self):
        return self.files["nvcc_args"]

    @property
    def host_compile_iquote(self):
        """Where the host compile finds the stub and the fatbinary's declaration it #includes by bare name."""
        return [os.path.dirname(self.files["cicc_stub/" + self.stub_arch]), os.path.dirname(self.files["fatbin_decl"])]

    @property
    def stub_name(self):
        """The name cudafe++ writes into the host code's #include of the stub."""
        return os.path.basename(self.files["cicc_stub/" + self.stub_arch])

    @property
    def fatbin_c_name(self):
        """The name cicc writes into the stub's #include of the embedded fatbinary (its declaration, for the host compile)."""
        name = os.path.basename(self.files["fatbin_c"])
        assert name == os.path.basename(self.files["fatbin_decl"])
        return name

    def to_json(self):
        return {
            "label": self.label,
            "display_label": self.display_label,
            "src": self.src,
            "src_short_path": self.src_short_path,
            "stem": self.stem,
            "directory": self.directory,
            "toolkit_root": self.toolkit_root,
            "archs": [dataclasses.asdict(a) | {"reals": list(a.reals)} for a in self.archs],
            "rdc": self.rdc,
            "link_marker": self.link_marker,
            "pinned_arch_list": self.pinned_arch_list,
            "user_options": self.user_options,
            "host_toolchain_flags": self.host_toolchain_flags,
            "device_toolchain_flags": self.device_toolchain_flags,
            "files": self.files,
            "scripts": self.scripts,
        }

    def validate(self, where="layout"):
        if not self.archs:
            raise LayoutError("%s: no archs" % where)
        if self.link_marker and (not self.rdc or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.link_marker)):
            raise LayoutError("%s: link_marker %r must be a C identifier, of relocatable code only" % (where, self.link_marker))
        _check_paths(where, "files", self.files, self.directory, stages.compile_files(self.stem, self.archs))
        _check_paths(where, "scripts", self.scripts, self.directory, stages.compile_scripts(self.archs, self.rdc))
        return self


_COMPILE_KEYS = (
    "label", "display_label", "src", "src_short_path", "stem", "directory", "toolkit_root", "archs", "rdc",
    "link_marker", "pinned_arch_list", "user_options", "host_toolchain_flags", "device_toolchain_flags", "files",
    "scripts",
)


def _archs_from_json(value, where):
    if not isinstance(value, list):
        raise LayoutError("%s: 'archs' must be a list" % where)
    out = []
    for i, a in enumerate(value):
        w = "%s: archs[%d]" % (where, i)
        if not isinstance(a, dict):
            raise LayoutError("%s must be an object" % w)
        _check_keys(a, ("virtual", "reals", "ptx", "lto"), w)
        out.append(stages.Arch(
            virtual=_require(a, "virtual", str, w),
            reals=tuple(_require(a, "reals", list, w)),
            ptx=_require(a, "ptx", bool, w),
            lto=_require(a, "lto", bool, w),
        ))
    return out


def compile_layout_from_json(obj, where="layout"):
    if not isinstance(obj, dict):
        raise LayoutError("%s: not a JSON object" % where)
    _check_keys(obj, _COMPILE_KEYS, where)
    layout = CompileLayout(
        label=_require(obj, "label", str, where),
        display_label=_require(obj, "display_label", str, where),
        src=_require(obj, "src", str, where),
        src_short_path=_require(obj, "src_short_path", str, where),
        stem=_require(obj, "stem", str, where),
        directory=_require(obj, "directory", str, where),
        toolkit_root=_require(obj, "toolkit_root", str, where),
        archs=_archs_from_json(obj.get("archs"), where),
        rdc=_require(obj, "rdc", bool, where),
        link_marker=_require(obj, "link_marker", str, where),
        pinned_arch_list=_require(obj, "pinned_arch_list", str, where),
        user_options=_require(obj, "user_options", list, where),
        host_toolchain_flags=_require(obj, "host_toolchain_flags", list, where),
        device_toolchain_flags=_require(obj, "device_toolchain_flags", list, where),
        files=_require(obj, "files", dict, where),
        scripts=_require(obj, "scripts", dict, where),
    )
    return layout.validate(where)


def compile_layout_for(*, label, display_label, src, src_short_path, stem, directory, toolkit_root, archs, rdc,
                       pinned_arch_list="", user_options=(), module_id_label=None, link_marker=""):
    """The layout the rules would write for this source (the runner's: it lays its files out the same way)."""
    return CompileLayout(
        label=label,
        display_label=display_label,
        src=src,
        src_short_path=src_short_path,
        stem=stem,
        directory=directory,
        toolkit_root=toolkit_root,
        archs=list(archs),
        rdc=rdc,
        link_marker=link_marker,
        pinned_arch_list=pinned_arch_list,
        user_options=list(user_options),
        files={k: os.path.join(directory, v) for k, v in stages.compile_files(stem, archs).items()},
        scripts={k: os.path.join(directory, v) for k, v in stages.compile_scripts(archs, rdc).items()},
        module_id_label=module_id_label,
    ).validate()


@dataclasses.dataclass
class LinkInput:
    """One arch's relocatable device code of one source, as a device link reads it."""

    kind: str  # elf (a relocatable cubin), nvvm (LTO IR) or object (a whole host object: staged = False)
    image: str  # the file
    script: str  # the source's device_object.sh ("" for kind object)
    name: str  # "<target> (<source>)", for messages


@dataclasses.dataclass
class LinkLayout:
    """What CudaPlan needs to turn nvcc's device link plan into stage scripts."""

    label: str  # the target as users write it, for messages
    name: str  # the target's name (file names)
    directory: str
    toolkit_root: str
    archs: list  # [sm_NN], in arch order
    lto: bool
    inputs: dict  # sm_NN -> [LinkInput]
    markers: list  # [[symbol a link without this device link lacks, symbol two device links of it define twice]]
    non_rdc: list  # labels of cuda_library targets below the link whose device code is not relocatable
    objects: list  # the host objects `nvcc -dlink` would read, in link order (fidelity checks)
    files: dict
    scripts: dict

    @property
    def nvcc_args_file(self):
        return self.files["nvcc_args"]

    def validate(self, where="layout"):
        if not self.archs:
            raise LayoutError("%s: no archs" % where)
        if sorted(self.inputs) != sorted(self.archs):
            raise LayoutError("%s: inputs are given for %s, the link is for %s" % (where, sorted(self.inputs), self.archs))
        _check_paths(where, "files", self.files, self.directory, stages.link_files(self.name, self.archs))
        _check_paths(where, "scripts", self.scripts, self.directory, stages.link_scripts(self.archs))
        return self


_LINK_KEYS = (
    "label", "name", "directory", "toolkit_root", "archs", "lto", "inputs", "markers", "non_rdc", "objects", "files", "scripts",
)


def link_layout_from_json(obj, where="layout"):
    if not isinstance(obj, dict):
        raise LayoutError("%s: not a JSON object" % where)
    _check_keys(obj, _LINK_KEYS, where)
    raw_inputs = obj.get("inputs")
    if not isinstance(raw_inputs, dict):
        raise LayoutError("%s: 'inputs' must map archs to lists" % where)
    inputs = {}
    for arch, entries in raw_inputs.items():
        if not isinstance(entries, list):
            raise LayoutError("%s: inputs[%r] must be a list" % (where, arch))
        inputs[arch] = []
        for i, e in enumerate(entries):
            w = "%s: inputs[%r][%d]" % (where, arch, i)
            if not isinstance(e, dict):
                raise LayoutError("%s must be an object" % w)
            _check_keys(e, ("kind", "image", "script", "name"), w)
            kind = _require(e, "kind", str, w)
            if kind not in ("elf", "nvvm", "object"):
                raise LayoutError("%s: kind %r is not elf, nvvm or object" % (w, kind))
            inputs[arch].append(LinkInput(kind, _require(e, "image", str, w), _require(e, "script", str, w), _require(e, "name", str, w)))
    markers = obj.get("markers")
    if not isinstance(markers, list) or not all(
        isinstance(m, list) and len(m) == 2 and all(isinstance(s, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", s) for s in m)
        for m in markers
    ):
        raise LayoutError("%s: 'markers' must be a list of [symbol, symbol] (C identifiers)" % where)
    layout = LinkLayout(
        label=_require(obj, "label", str, where),
        name=_require(obj, "name", str, where),
        directory=_require(obj, "directory", str, where),
        toolkit_root=_require(obj, "toolkit_root", str, where),
        archs=_require(obj, "archs", list, where),
        lto=_require(obj, "lto", bool, where),
        inputs=inputs,
        markers=markers,
        non_rdc=_require(obj, "non_rdc", list, where),
        objects=_require(obj, "objects", list, where),
        files=_require(obj, "files", dict, where),
        scripts=_require(obj, "scripts", dict, where),
    )
    return layout.validate(where)


def load(path, kind="compile"):
    """Reads and validates a layout file (kind "compile" or "link")."""
    try:
        with open(path) as f:
            obj = json.load(f)
    except (OSError, ValueError) as e:
        raise LayoutError("cannot read layout %s: %s" % (path, e))
    if kind == "compile":
        return compile_layout_from_json(obj, path)
    return link_layout_from_json(obj, path)
