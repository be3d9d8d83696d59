"""The stage scripts of one source compiled by clang in stages, from clang's own plan (`clang -###`).

`for_source(plan, layout)` checks that clang's plan (clang_dryrun.parse of
`clang -###` with the target's flags, -cuid set to the rules' module id) has
exactly the stages the layout declares for stages.CLANG_TABLE: one device
`clang -cc1` per GPU arch, one ptxas per cubin, one fatbinary, one host
`clang -cc1`. It writes each job's command as its stage's script, with every
temporary file renamed to the file Bazel declared for it, and the embed
stage's. Four changes to clang's own commands, none of which changes an
output byte:

- the host compile embeds an empty fatbinary (/dev/null), so it reads no
  device output and runs beside the device stages; CudaClangEmbed splices the
  fatbinary into its .nv_fatbin section (elf_splice.py);
- fatbinary gets each image as `--image3=kind=...,sm=...` (CUDA >= 12.9's
  fatbinary has no `--image`; 12.4's writes the same bytes for both forms),
  without the cubin of an arch whose PTX alone is embedded (compute_NN
  without sm_NN: clang plans a ptxas for every GPU arch; the rules run none);
- clang 22's own __CUDA_ARCH_LIST__ definition is dropped where the rules'
  (the shipped set's, after it) undoes it: the jobs' command lines are then
  the same in a build of the shipped set and of a subset of it;
- ptxas runs in an empty directory with its files spelled from the execroot:
  with line info ptxas stats the files the PTX names and records their
  modification times in the cubin (clang's one-shot compile does too), and
  in an empty directory they do not resolve, whatever the strategy.
"""

import contextlib
import dataclasses
import hashlib
import json
import os
import shlex

from tools.nvcc_plan import clang_dryrun
from tools.nvcc_plan import compile_scripts
from tools.nvcc_plan import scripts as scripts_lib
from tools.nvcc_plan import stage_graph
from tools.nvcc_plan import stages

KEYS = stages.KEYS


def check_archs(layout):
    """Each virtual arch of a clang compile builds at most its own cubin (clang has no virtual/real split)."""
    for a in layout.archs:
        gpu = clang_dryrun.gpu_arch(a.virtual)
        if a.lto or [r for r in a.reals if r != gpu]:
            scripts_lib.fail(
                layout.display_label,
                "clang compiles each GPU arch from the source for itself: %s with cubins %s cannot be built by clang "
                "(%s). Fix: name archs as sm_NN or compute_NN, or compile with nvcc."
                % (a.virtual, ", ".join(a.reals) or "none", "LTO IR is nvcc's" if a.lto else "only %s" % gpu),
            )


def _execroot_relative(path):
    prefix = scripts_lib.CANONICAL_CWD + "/"
    return path[len(prefix) :] if path.startswith(prefix) else path


def _ptxas_script(layout, exports, argv, execroot_files, arch):
    """ptxas in an empty directory, its files spelled "$here"/<execroot path>."""
    lines = scripts_lib.preamble(_comment(layout, stages.PTXAS.mnemonic, arch), exports)
    lines += ['here="$(pwd -P)"', 'empty="$(mktemp -d)"', "trap 'rm -rf \"$empty\"' EXIT", 'cd "$empty" || exit 1']
    lines.append(" ".join(('"$here"/' + shlex.quote(a)) if a in execroot_files else shlex.quote(a) for a in argv))
    return "\n".join(lines) + "\n"


def _comment(layout, mnemonic, arch=""):
    return "%s%s of %s (%s), from clang's plan." % (mnemonic, " " + arch if arch else "", layout.src, layout.display_label)


def _script(layout, exports, mnemonic, argv, arch=""):
    lines = scripts_lib.preamble(_comment(layout, mnemonic, arch), exports)
    lines.append("exec " + " ".join(shlex.quote(a) for a in argv))
    return "\n".join(lines) + "\n"


def _keyed_as_the_table(plan, layout):
    """clang's plan with its jobs keyed as the table's instances: a device job by its virtual arch, a ptxas by
    (virtual, real), and only the ptxas of archs whose cubin is built (clang plans one for every GPU arch)."""
    gpus = sorted(clang_dryrun.gpu_arch(a.virtual) for a in layout.archs)
    ptxases = sorted(c.arch for c in plan.by_step(stages.STEP_PTXAS))
    if ptxases != gpus:
        scripts_lib.fail(layout.display_label, "clang plans ptxas for %s, the rule declared %s" % (ptxases, gpus))
    cubins = {clang_dryrun.gpu_arch(a.virtual) for a in layout.archs if a.reals}
    commands = []
    for command in plan.commands:
        if command.step == stages.STEP_CLANG_DEVICE:
            command = dataclasses.replace(command, arch="compute_" + command.arch[len("sm_") :])
        elif command.step == stages.STEP_PTXAS and command.arch not in cubins:
            continue  # the cubin of a PTX-only arch: not built
        commands.append(command)
    return dataclasses.replace(plan, commands=commands)


def for_source(plan, layout, driver):
    """Returns {script path: content} for every stage of `plan` (a dryrun.Plan from clang_dryrun.parse).

    `driver` is the clang CudaPlan ran (the C++ toolchain's): the embed of
    relocatable code compiles and links its check symbol with it, and each
    arch's device object for nvlink (device_object.sh) is compiled with it.
    """
    if layout.table != stages.CLANG_TABLE.name:
        scripts_lib.fail(layout.display_label, "a clang plan for a layout of the %s table" % layout.table)
    check_archs(layout)
    units = {s: stage_graph.instances(s, layout.archs, []) for s in stages.CLANG_STAGES}
    fix = "(options: %s). Remove the option, or compile this target with nvcc." % (" ".join(layout.user_options) or "none")
    unit = scripts_lib.Unit.of(
        _keyed_as_the_table(plan, layout), layout, units, fix,
        exports=lambda _: [("PWD", scripts_lib.CANONICAL_CWD)], compiler="clang",
    )
    host, fatbinary = unit.only(stages.CLANG_HOST_COMPILE), unit.only(stages.CLANG_FATBINARY)
    if ("-fgpu-rdc" in host.argv) != layout.rdc:
        scripts_lib.fail(
            layout.display_label,
            "clang plans %s device code, the rule declared %s. Fix: set rdc = True on the target instead of "
            "passing -fgpu-rdc (or -fno-gpu-rdc) in copts."
            % ("relocatable" if "-fgpu-rdc" in host.argv else "whole-program", "relocatable" if layout.rdc else "whole-program"),
        )
    images = clang_dryrun.parse_images(fatbinary.argv)
    want_ptx = sorted(clang_dryrun.gpu_arch(a.virtual)[3:] for a in layout.archs if a.ptx)
    got_ptx = sorted(im["sm"] for im in images if im["kind"] == "ptx")
    if got_ptx != want_ptx:
        scripts_lib.fail(layout.display_label, "clang's fatbinary embeds the PTX of %s, the rule declared %s" % (got_ptx, want_ptx))
    # The toolkit clang found (--cuda-path, execroot-relative) is the rules': its ptxas and fatbinary.
    root = _execroot_relative(layout.toolkit_root)
    for command in unit.plan.by_step(stages.STEP_PTXAS) + [fatbinary]:
        want_tool = "%s/bin/%s" % (root, command.tool)
        if _execroot_relative(os.path.normpath(command.argv[0])) != os.path.normpath(want_tool):
            scripts_lib.fail(layout.display_label, "clang runs %s, not the toolkit's %s" % (command.argv[0], want_tool))
    out = {}
    for action in unit.graph["actions"]:
        out.update(PLANNER[action["stage"]](unit, action, driver))
    if layout.rdc:
        # nvlink names each linked module after the object's __nv_module_id; clang's
        # host object registers the source under its own id (rdc_module_id).
        # fatbinary's options without its output and images; --device-c: the C
        # wrapper puts the image where nvlink reads relocatable code, as nvcc's -rdc plan does.
        fat = _fatbinary_argv(unit)
        create = fat.index("--create")
        options = [a for a in fat[:create] + fat[create + 2 :] if not a.startswith("--image3=")]
        out[layout.scripts[stages.DEVICE_OBJECT_SCRIPT]] = compile_scripts.device_object_script(
            layout, unit.exports, options + ["--device-c"], driver, rdc_module_id(host.argv[-1])
        )
    return out


_ARCH_LIST = "__CUDA_ARCH_LIST__"


def without_dead_arch_list(argv):
    """argv without the -D__CUDA_ARCH_LIST__=... definitions a later -U __CUDA_ARCH_LIST__ undoes.

    clang 22's driver defines __CUDA_ARCH_LIST__ from the archs it compiles,
    before the user's options; a build of a subset of the shipped set passes
    the shipped set's list after it (-U, then -D: compile/clang.bzl). The
    driver's definition is then dead, and dropping it makes one arch's device
    compile, and the host compile, the same command in every build of the
    shipped set or a subset of it.
    """
    undone = [
        i for i, a in enumerate(argv)
        if a == "-U" + _ARCH_LIST or (a == "-U" and i + 1 < len(argv) and argv[i + 1] == _ARCH_LIST)
    ]
    if not undone:
        return list(argv)
    return [a for i, a in enumerate(argv) if not (i < undone[-1] and a.startswith("-D%s=" % _ARCH_LIST))]


def _command(unit, command):
    """A job of clang's plan as its script runs it: its files renamed (no other file of clang's may remain),
    without a dead __CUDA_ARCH_LIST__ definition (without_dead_arch_list)."""
    argv = [unit.rename(arg) for arg in without_dead_arch_list(command.argv)]
    left = [arg for arg in argv if clang_dryrun.PLAN_TMPDIR in arg]
    if left:
        scripts_lib.fail(unit.layout.display_label, "clang's %s job has files these rules cannot name: %s" % (command.step, " ".join(left)))
    return argv


def _device(unit, action, driver):  # noqa: ARG001 - every clang planner function gets the driver
    inst = action["inst"]
    gpu = clang_dryrun.gpu_arch(inst["virtual"])
    argv = _command(unit, unit.command_of(stages.CLANG_DEVICE, inst))
    return {unit.layout.scripts[action["script"]]: _script(unit.layout, unit.exports, stages.CLANG_DEVICE.mnemonic, argv, gpu)}


def _ptxas(unit, action, driver):  # noqa: ARG001
    layout, inst = unit.layout, action["inst"]
    argv = _command(unit, unit.command_of(stages.PTXAS, inst))
    execroot_files = {
        layout.files[stage_graph.instance_key(KEYS.ptx, {"virtual": inst["virtual"]})],
        layout.files[stage_graph.instance_key(KEYS.cubin, inst)],
    }
    if not os.path.isabs(argv[0]):
        execroot_files.add(argv[0])
    return {layout.scripts[action["script"]]: _ptxas_script(layout, unit.exports, argv, execroot_files, inst["real"])}


def _fatbinary_argv(unit):
    """clang's fatbinary, each image as --image3= (CUDA >= 12.9's form), without the cubins of PTX-only archs."""
    fatbinary = unit.only(stages.CLANG_FATBINARY)
    cubins = {clang_dryrun.gpu_arch(a.virtual)[3:] for a in unit.layout.archs if a.reals}
    fat = []
    for arg in fatbinary.argv:
        if arg.startswith(("--image=", "--image3=")):
            im = clang_dryrun.parse_images([arg])[0]
            if im["kind"] == "elf" and im["sm"] not in cubins:
                continue  # the cubin of a PTX-only arch: its ptxas is not run
            arg = "--image3=kind=%s,sm=%s,file=%s" % (im["kind"], im["sm"], im["file"])
        fat.append(arg)
    return _command(unit, dataclasses.replace(fatbinary, argv=fat))


def _fatbinary(unit, action, driver):  # noqa: ARG001
    return {unit.layout.scripts[action["script"]]: _script(unit.layout, unit.exports, stages.CLANG_FATBINARY.mnemonic, _fatbinary_argv(unit))}


def _host(unit, action, driver):  # noqa: ARG001
    # The host compile embeds an empty fatbinary: clang emits the same
    # registration code and an empty .nv_fatbin section, which CudaClangEmbed
    # fills with the fatbinary (the object is then clang's own, byte for byte).
    host = unit.only(stages.CLANG_HOST_COMPILE)
    blob = host.argv.index("-fcuda-include-gpubinary") + 1
    argv = _command(unit, dataclasses.replace(host, argv=host.argv[:blob] + ["/dev/null"] + host.argv[blob + 1 :]))
    return {unit.layout.scripts[action["script"]]: _script(unit.layout, unit.exports, stages.CLANG_HOST_COMPILE.mnemonic, argv)}


def _embed(unit, action, driver):
    return {unit.layout.scripts[action["script"]]: embed_script(unit.layout, unit.exports, driver)}


# Every stage's script, from clang's plan.
PLANNER = {
    stages.CLANG_DEVICE: _device,
    stages.PTXAS: _ptxas,
    stages.CLANG_FATBINARY: _fatbinary,
    stages.CLANG_HOST_COMPILE: _host,
    stages.CLANG_EMBED: _embed,
}


# The sections of a host object clang puts the fatbinary in (CGCUDANV.cpp):
# whole-program code, and relocatable code (-fgpu-rdc), which nvlink reads.
FATBIN_SECTION = ".nv_fatbin"
RELOCATABLE_FATBIN_SECTION = "__nv_relfatbin"
# Where a relocatable source's object keeps its reference to the symbol only a device link defines.
CHECK_SECTION = ".data.rel.ro.rules_cuda_stages_device_link_check"


def rdc_module_id(main_file):
    """The module id clang's host compile gives a relocatable source (-fgpu-rdc, the old offload driver).

    clang names the module "__nv_" + the GUID of its internal
    `__cuda_fatbin_wrapper` in hex (CGCUDANV.cpp), and LLVM's GUID of an
    internal symbol is the low 64 bits, little-endian, of
    MD5("<the -cc1 main file as spelled>;<name>"). The host object registers
    itself under `__cudaRegisterLinkedBinary<id>`, which the device link
    defines for the module of that id. The rules spell every source
    execroot-relative, so the id is the same in every checkout; -cuid does not
    enter it (//tests/clang's rdc fidelity test reads the id clang wrote).
    """
    digest = hashlib.md5(("%s;__cuda_fatbin_wrapper" % main_file).encode()).digest()
    return "__nv_%x" % int.from_bytes(digest[:8], "little")


def embed_script(layout, exports, driver):
    """CudaClangEmbed's script: `elf_splice` (its path is the script's first argument, from the action) fills the section.

    For relocatable code the object also needs the source's check symbol,
    which only a device link defines (compile_scripts.embed_script does the
    same for nvcc's objects): the spliced object and a one-line C object are
    joined with `clang -r`.
    """
    files = layout.files
    lines = scripts_lib.preamble(_comment(layout, stages.CLANG_EMBED.mnemonic), exports)
    if not layout.rdc:
        lines.append('exec "$1" ' + " ".join(shlex.quote(a) for a in (FATBIN_SECTION, files[KEYS.fatbin], files[KEYS.host_obj], files[KEYS.obj])))
        return "\n".join(lines) + "\n"
    lines.append("set -e")
    lines += scripts_lib.temp_dir_lines()
    lines.append('"$1" ' + " ".join(shlex.quote(a) for a in (RELOCATABLE_FATBIN_SECTION, files[KEYS.fatbin], files[KEYS.host_obj])) + ' "$tmp/spliced.o"')
    parts = ['"$tmp/spliced.o"']
    if layout.link_marker:
        # The check object goes first and adds no bytes to any section clang's
        # object has: no .comment (-fno-ident), no .llvm_addrsig, its pointer in
        # a section of its own; its empty .text comes before clang's, unpadded.
        check = (
            'extern char %s __attribute__((visibility("hidden"))); '
            "static char *const __rules_cuda_stages_device_link_check "
            '__attribute__((used, section("%s"))) = &%s;'
            % (layout.link_marker, CHECK_SECTION, layout.link_marker)
        )
        lines.append(
            "printf '%%s\\n' %s | %s -c -x c -w -fPIC -fno-ident -fno-addrsig - -o \"$tmp/check.o\""
            % (shlex.quote(check), shlex.quote(driver))
        )
        parts.insert(0, '"$tmp/check.o"')
    # -Wl,--build-id=none: Debian's clang asks the linker for a build id, which only a program should get.
    lines.append("%s -r -nostdlib -Wl,--build-id=none -o %s %s" % (shlex.quote(driver), shlex.quote(files[KEYS.obj]), " ".join(parts)))
    return "\n".join(lines) + "\n"


def clang_args(layout, args):
    """The driver call CudaPlan plans: the rules' arguments and -cuid, the source's module id.

    clang's default CUID hashes every driver argument (the output path and
    the arch list included) and, before clang 20, the source's real path; the
    module id is the same for a source wherever and for whatever archs it is
    built, and the host and device compiles share it.
    """
    return list(args) + ["-cuid=" + compile_scripts.module_id_of(layout)]


@contextlib.contextmanager
def _source_present(layout, cwd):
    """The source exists for `clang -###` while the block runs: an empty file if it is absent.

    clang's plan only checks that its input exists: the source is not an input of
    CudaPlan (its content does not change the plan, and with it every edit would
    plan again), so a remote executor's input root, or a sandbox, may lack it.
    """
    relative = layout.src[len(_PROC_CWD) :] if layout.src.startswith(_PROC_CWD) else layout.src
    path = os.path.join(cwd or os.getcwd(), relative)
    if os.path.exists(path):
        yield
        return
    created = []
    parent = os.path.dirname(path)
    while parent and not os.path.isdir(parent):
        created.append(parent)
        parent = os.path.dirname(parent)
    for d in reversed(created):
        os.mkdir(d)
    open(path, "w").close()
    try:
        yield
    finally:
        os.remove(path)
        for d in created:
            os.rmdir(d)


_PROC_CWD = "/proc/self/cwd/"


def plan(clang, layout, args, cwd=None):
    """Plans the layout's source with `clang -###`: ({path: content} of the scripts, the driver call)."""
    call = clang_args(layout, args)
    with _source_present(layout, cwd):
        _, parsed = clang_dryrun.parse(clang_dryrun.run(clang, call, cwd=cwd))
    out = for_source(parsed, layout, clang)
    out[layout.module_id_file] = compile_scripts.module_id_of(layout)
    out[layout.nvcc_args_file] = json.dumps({"clang": clang, "args": call}, indent=1) + "\n"
    return out

