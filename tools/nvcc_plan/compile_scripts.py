"""The stage scripts of one source's staged compile, from nvcc's own plan.

`for_source(plan, layout)` checks that nvcc's plan (`nvcc --dryrun` with the
target's flags) has exactly the commands the layout's stages are made from
(scripts.match_steps: one device preprocess and cicc per virtual arch, one
ptxas per real arch, ...), and writes each stage's script from its record
(stages.py): the command of its step with every temporary file renamed to
the file Bazel declared for it (the record's `named_by` and `names`), every
toolkit path spelled from the execroot, the shipped set's __CUDA_ARCH_LIST__
where the record pins it; a stage that needs more has a function in PLANNER.
"""

import dataclasses
import re
import shlex

from tools.nvcc_plan import dryrun
from tools.nvcc_plan import scripts as scripts_lib
from tools.nvcc_plan import stage_graph
from tools.nvcc_plan import stages

KEYS = stages.KEYS


def for_source(plan, layout):
    """Returns {path: content} of every script of `layout` (a CompileLayout) and CudaPlan's other files."""
    units = {s: stage_graph.instances(s, layout.archs, []) for s in layout.stage_table.stages}
    fix = "(options: %s). Remove the option, or build this target with staged = False." % (" ".join(layout.user_options) or "none")
    nvvmir = plan.env_dict().get("NVVMIR_LIBRARY_DIR", "")
    unit = scripts_lib.Unit.of(
        plan, layout, units, fix,
        exports=lambda toolkit: scripts_lib.env_exports(
            layout.toolkit_root, nvvmir_library_dir=scripts_lib.normpath(toolkit.rewrite(nvvmir))),
        pinned_steps=_PINNED_STEPS,
    )
    if plan.relocatable != layout.rdc:
        scripts_lib.fail(
            layout.display_label,
            "nvcc plans %s device code, the rule declared %s" % (
                "relocatable" if plan.relocatable else "whole-program", "relocatable" if layout.rdc else "whole-program"),
        )
    out = {}
    for action in unit.graph["actions"]:
        out.update(PLANNER.get(action["stage"], _from_step)(unit, action))
    the_id = module_id_of(layout)
    out[layout.files[KEYS.fatbin_decl]] = fatbin_declaration(layout, the_id)
    if layout.rdc:
        out[layout.scripts[stages.DEVICE_OBJECT_SCRIPT]] = device_object_script(
            layout, unit.exports, unit.command(unit.only(stages.EMBED_FATBIN)), _host_compile_argv(unit)[0], the_id
        )
    return out


# The steps whose commands define __CUDA_ARCH_LIST__ (the records that pin it).
_PINNED_STEPS = {step for s in stages.COMPILE_STAGES if s.pin_arch_list for step in s.steps}


def _from_step(unit, action):
    """A stage whose script is its step's command as it is."""
    return unit.script(action, unit.command(unit.command_of(action["stage"], action["inst"])))


def _frontend(unit, action):
    """cudafe++ and the registration stub's cicc front end, side by side (frontend_script)."""
    layout = unit.layout
    # cudafe++, told the source's canonical path and given the rules' module id (not generating one).
    cudafe = [a for a in unit.command(unit.only(stages.FRONTEND)) if a != "--gen_module_id_file"]
    scripts_lib.set_value(cudafe, "--orig_src_path_name", layout.src)
    arch, dpp, cicc, _ = _registration(unit)
    if arch != layout.registration_arch:
        # (registration_commands could not make the arch's commands from another's.)
        scripts_lib.fail(layout.display_label, "cannot write the registration stub for %s from nvcc's plan of %s. "
                         "Build with staged = False, or set --@rules_cuda_stages//cuda_rules:shipped_archs=same."
                         % (layout.registration_arch, ", ".join(layout.virtual_archs)))
    stub = registration_stub_lines(layout, arch, dryrun.value_after(unit.command(dpp), "-o"), cicc)
    return {layout.scripts[action["script"]]: frontend_script(layout, unit.exports, cudafe, stub)}


def frontend_script(layout, exports, cudafe, stub):
    """CudaFrontend: cudafe++ (`cudafe`, its output's disabled device code blanked) and `stub` (registration_stub_lines) at once.

    The two front ends read different files (the host side's preprocessed
    source, and the registration arch's device side) and both feed the host
    compile, so one action runs them side by side (_side_by_side: each error
    said once, the first failing one's status).
    """
    # The host compile's input: the same host code whatever the device code's
    # text, so a device-only edit that keeps the lines re-runs no host compile.
    blank = scripts_lib.blank_disabled_device_code(layout.files[KEYS.cudafe1_cpp])
    lines = scripts_lib.preamble(scripts_lib.stage_comment(layout.label, layout.src, stages.FRONTEND.mnemonic), exports)
    lines += scripts_lib.temp_dir_lines()
    lines += _side_by_side([[_line(cudafe)] + [b + " || exit $?" for b in blank], stub])
    lines.append('[ "$rc" -eq 0 ] || exit "$rc"')
    return "\n".join(lines) + "\n"


def _side_by_side(groups):
    """Shell lines that run `groups` (each a list of shell lines: one line runs as it is, more in a subshell) at once
    and leave the first failing one's status in $rc (the caller exits with it).

    Their errors are printed once: on a failure the first failing group's
    alone (as nvcc stops at its first failing command), else each group's
    that no earlier group printed the same (the preprocesses of one source
    warn alike).
    """
    lines = []
    for i, group in enumerate(groups):
        run = group[0] if len(group) == 1 else "(\n%s\n)" % "\n".join("  " + l for l in group)
        lines.append('%s 2>"$tmp/err%d" & p%d=$!' % (run, i, i))
    lines.append("rc=0")
    for i in range(len(groups)):
        lines.append('wait "$p%d" || { r=$?; [ "$rc" -ne 0 ] || { rc=$r; failed="$tmp/err%d"; }; }' % (i, i))
    lines.append('if [ "$rc" -ne 0 ]; then cat "$failed" >&2; else')
    for i in range(len(groups)):
        same = "".join('cmp -s "$tmp/err%d" "$tmp/err%d" || ' % (j, i) for j in range(i))
        lines.append('  %scat "$tmp/err%d" >&2' % (same, i))
    lines.append("fi")
    return lines


def _errs(n):
    return " ".join('"$tmp/err%d"' % i for i in range(n))


def _device_preprocess_command(unit, arch):
    """nvcc's device preprocess of one virtual arch, or, for an arch the plan does not compile, another plain arch's made its own.

    The preprocess writes every arch of the shipped set (stage_graph.preprocessed_archs),
    so that it is one action in every build of the set or a subset of it: nvcc's commands
    for two plain archs differ in -D__CUDA_ARCH__ alone, but for file names
    (//tools/nvcc_plan:compile_scripts_test).
    """
    layout = unit.layout
    if arch in layout.virtual_archs:
        return unit.sub_command_of(stages.PREPROCESS, arch)
    plain = [a for a in layout.virtual_archs if _PLAIN_VIRTUAL.fullmatch(a)]
    command = _retarget(unit.sub_command_of(stages.PREPROCESS, plain[-1]), _arch_define(plain[-1]), _arch_define(arch)) if plain else None
    if command is None:
        scripts_lib.fail(layout.display_label, "cannot preprocess %s, an arch of the shipped set this build does not compile, "
                         "from nvcc's plan of %s. Build the whole shipped set, or set --@rules_cuda_stages//cuda_rules:shipped_archs=same."
                         % (arch, ", ".join(layout.virtual_archs)))
    return command


def _device_preprocess_argv(unit, arch):
    """The device preprocess of one arch as the preprocess script runs it: into its declared file, with only the
    C++ toolchain's flags that shape device code."""
    argv = unit.command(_device_preprocess_command(unit, arch))
    argv = _rename_args(argv, {dryrun.value_after(argv, "-o"): unit.layout.files[stage_graph.instance_key(KEYS.cpp1, {"virtual": arch})]})
    return device_toolchain_flags(unit.layout, argv, arch)


def _preprocess(unit, action):
    """The host side's -E and each preprocessed arch's device side's (preprocess_script)."""
    layout = unit.layout
    commands = [unit.command(unit.only(stages.PREPROCESS))] + [_device_preprocess_argv(unit, a) for a in layout.preprocessed_archs]
    return {layout.scripts[action["script"]]: preprocess_script(layout, unit.exports, commands)}


def preprocess_script(layout, exports, commands):
    """CudaPreprocess: `commands` (the host side's -E, then each arch's device side's) at once.

    The one action that reads the headers is on every later stage's path, so
    its commands run side by side (_side_by_side: each error said once, the
    first failing command's status), then the host compiler's hints for any
    of their errors.
    """
    lines = scripts_lib.preamble(scripts_lib.stage_comment(layout.label, layout.src, stages.PREPROCESS.mnemonic), exports)
    lines += scripts_lib.temp_dir_lines()
    lines += _side_by_side([[" ".join(_quote(a) for a in argv)] for argv in commands])
    lines += scripts_lib.hint_lines(layout.label, stages.PREPROCESS.mnemonic, _errs(len(commands)))
    lines.append('[ "$rc" -eq 0 ] || exit "$rc"')
    return "\n".join(lines) + "\n"


def _host_compile_argv(unit):
    """The host compile as its script runs it: nvcc's, with the registration arch's __CUDA_ARCH__ (registration_commands)."""
    return unit.command(_registration(unit)[3])


def _host_compile(unit, action):
    """The host compile, finding the stub and the fatbinary's declaration it #includes by bare name."""
    argv = _host_compile_argv(unit)
    for directory in unit.layout.host_compile_iquote:
        argv[-2:-2] = ["-iquote", directory]  # before `-o OUT`
    return unit.script(action, argv)


def _embed(unit, action):
    """fatbinary (also writing the fatbinary itself, what device images read), then its C form embedded."""
    fatbinary = unit.command(unit.only(stages.EMBED_FATBIN)) + ["--create=" + unit.layout.files[KEYS.fatbin]]
    argv = _host_compile_argv(unit)
    return {unit.layout.scripts[action["script"]]: embed_script(
        unit.layout, unit.exports, fatbinary, argv[0], _machine_flags(argv), module_id_of(unit.layout))}


def _registration(unit):
    """(arch, device preprocess, cicc, host compile) of the registration stub (registration_commands)."""
    layout = unit.layout
    dpps = {a: unit.sub_command_of(stages.PREPROCESS, a) for a in layout.virtual_archs}
    ciccs = {a: unit.command_of(stages.CICC, {"virtual": a}) for a in layout.virtual_archs}
    arch, dpp, cicc, host_compile = registration_commands(layout, dpps, ciccs, unit.only(stages.HOST_COMPILE))
    cicc = unit.command(cicc)
    scripts_lib.set_value(cicc, "--orig_src_path_name", layout.src)
    return arch, dpp, cicc, host_compile


def without_split_compile(argv):
    """A cicc command without nvcc's `-split-compile N` (stages.CICC.split_compile_below_arch says why)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "-split-compile":
            skip = True
        elif not a.startswith("-split-compile="):
            out.append(a)
    return out


def _cicc(unit, action):
    """The whole cicc for one virtual arch, on its preprocessed source (the registration arch's too: cicc_split.py)."""
    layout = unit.layout
    arch = action["inst"]["virtual"]
    argv = unit.command(unit.command_of(stages.CICC, action["inst"]))
    scripts_lib.set_value(argv, "--orig_src_path_name", layout.src)
    if not stages.splits_for_arch(stages.CICC, arch):
        argv = without_split_compile(argv)
    return {layout.scripts[action["script"]]: cicc_script(layout, unit.exports, arch, argv, _ptx_check(unit, arch))}


def _ptx_check(unit, arch):
    """nvcc's check of an arch's PTX (dryrun.is_ptx_check) as CudaCicc runs it, or None.

    nvcc checks the PTX of an arch embedded with no cubin of its own, and only
    that; the rules give that arch's CudaCicc ptxas (the PTX_CHECK hook) on the
    same condition, so a check elsewhere is a plan they cannot run.
    """
    check = unit.plan.ptx_checks.get(arch)
    if check is None:
        return None
    entry = next(a for a in unit.layout.archs if a.virtual == arch)
    if entry.reals or not entry.ptx or entry.lto:
        scripts_lib.fail(unit.layout.display_label, "nvcc checks the PTX of %s with ptxas, but the rules build %s from it%s" % (
            arch, ", ".join(entry.reals) or "no cubin", "" if entry.ptx else " and do not embed it"))
    return unit.command(check)


# The stages whose script is more than their step's command as it is.
PLANNER = {
    stages.PREPROCESS: _preprocess,
    stages.FRONTEND: _frontend,
    stages.CICC: _cicc,
    stages.HOST_COMPILE: _host_compile,
    stages.EMBED_FATBIN: _embed,
}


_PLAIN_VIRTUAL = re.compile(r"compute_([0-9]+)")
# What CudaFrontend adds to nvcc's cicc command for the registration stub: run
# the front end (the stub, .cudafe1.c, .cudafe1.gpu, as the full cicc writes
# them) and skip device code generation.
FRONT_END_ONLY = ["--Xlgenfe", "--device-syntax-only"]


def registration_commands(layout, dpps, ciccs, host_compile):
    """(arch, device preprocess, cicc, host compile) of nvcc's plan for the registration stub's arch.

    The arch is layout.registration_arch (stage_graph.registration_arch: the shipped set's last for
    a pinned build, else nvcc's last). nvcc's host compile defines
    __CUDA_ARCH__ as the arch whose stub it includes (its last): the host
    compile returned defines the registration arch's. A build of a subset that does
    not compile the registration arch has no commands for it in nvcc's plan: they are
    the commands of its last plain arch (compute_NN) with that arch's arch
    tokens (-D__CUDA_ARCH__=NN0 in the preprocess and the host compile, -arch
    compute_NN in cicc) set to the registration arch's, as nvcc's plans of every arch
    differ in nothing else but file names (//tools/nvcc_plan:compile_scripts_test).
    Where that cannot be done (no plain arch compiled, or a token not found
    once) it is all nvcc's own: the last arch's stub and host compile.
    """
    want = layout.registration_arch
    last = layout.virtual_archs[-1]
    if want == last:
        return want, dpps[want], ciccs[want], host_compile
    plain = [a for a in layout.virtual_archs if _PLAIN_VIRTUAL.fullmatch(a)]
    if _PLAIN_VIRTUAL.fullmatch(want) and plain and _PLAIN_VIRTUAL.fullmatch(last):
        base = want if want in ciccs else plain[-1]
        dpp = _retarget(dpps[base], _arch_define(base), _arch_define(want))
        cicc = _retarget(ciccs[base], ("-arch", base), ("-arch", want))
        retargeted = _retarget(host_compile, _arch_define(last), _arch_define(want))
        if dpp and cicc and retargeted:
            return want, dpp, cicc, retargeted
    return last, dpps[last], ciccs[last], host_compile


def _arch_define(virtual):
    """-D__CUDA_ARCH__=NN0 of a plain virtual arch (compute_NN)."""
    return "-D__CUDA_ARCH__=%d" % (int(_PLAIN_VIRTUAL.fullmatch(virtual).group(1)) * 10)


def _retarget(command, old, new):
    """A copy of a plan command with the token `old` (or the pair of tokens) replaced by `new`, or None unless it occurs once."""
    argv = list(command.argv)
    if isinstance(old, tuple):
        at = [i for i in range(len(argv) - 1) if (argv[i], argv[i + 1]) == old]
        if len(at) != 1:
            return None
        argv[at[0] : at[0] + 2] = list(new)
    else:
        at = [i for i, a in enumerate(argv) if a == old]
        if len(at) != 1:
            return None
        argv[at[0]] = new
    return dataclasses.replace(command, argv=argv)


def registration_stub_lines(layout, arch, preprocessed, cicc):
    """Shell lines of the registration arch's cicc front end on its preprocessed source: the stub.

    `cicc` is the registration arch's command, its files already named as the
    rules declared them; it reads `preprocessed` (its name in `cicc`), which
    is CudaPreprocess's output for the arch. The front end runs alone
    (FRONT_END_ONLY: no device code is generated); the stub goes to the
    declared file the host compile includes, cicc's other front-end outputs to
    the script's temporary directory. That arch's CudaCicc runs the whole cicc
    on the same preprocessed source (cicc_split.py says why not libnvvm alone
    on this front end's NVVM IR).
    """
    files = layout.files
    ii = files[stage_graph.instance_key(KEYS.cpp1, {"virtual": arch})]
    local = {
        preprocessed: ii,
        dryrun.value_after(cicc, "-o"): _TMP + "/stub.ptx",
        dryrun.value_after(cicc, "--stub_file_name"): files[KEYS.registration_stub],
    }
    return ["# The registration stub, from %s's cicc front end." % arch, _line(_rename_args(cicc, local) + FRONT_END_ONLY)]


def cicc_script(layout, exports, arch, argv, ptx_check=None):
    """CudaCicc of one virtual arch: `argv` with cicc's other outputs in a temporary directory; then
    `ptx_check`, nvcc's ptxas check of the PTX (it writes nothing), where nvcc runs one."""
    lines = scripts_lib.preamble(scripts_lib.stage_comment(layout.label, layout.src, stages.CICC.mnemonic, arch), exports)
    lines += scripts_lib.temp_dir_lines()
    lines.append(_line(argv))
    if ptx_check:
        lines.append("# nvcc's check of the PTX it embeds for %s with no cubin of its own." % arch)
        lines.append(_line(ptx_check))
    return "\n".join(lines) + "\n"


# The script's temporary directory (scripts_lib.temp_dir_lines), as the commands spell it before quoting.
_TMP = scripts_lib.TMP


def _line(argv):
    return " ".join(_quote(a) for a in argv) + " || exit $?"


def _quote(arg):
    """One argument for the shell: a leading placeholder as its variable, the rest quoted."""
    for placeholder, variable in ((_TMP, '"$tmp"'), ("@PWD@", '"$PWD"')):
        if arg.startswith(placeholder):
            return variable + shlex.quote(arg[len(placeholder):])
    if _TMP in arg or "@PWD@" in arg:
        raise ValueError("a placeholder inside an argument: %r" % arg)
    return shlex.quote(arg)


def _wrote(path):
    """A line that fails the script unless `path` was written (non-empty)."""
    return "[ -s %s ] || exit 1" % _quote(path)


def _rename_args(argv, renames):
    return [renames.get(a, a) for a in argv]


def device_toolchain_flags(layout, argv, arch):
    """A device preprocess command with only the C++ toolchain's flags that shape device code.

    nvcc gives every -Xcompiler value to every host compiler command, in order,
    as one run of arguments; the rules passed the toolchain's flags first
    (layout.host_toolchain_flags). In the device preprocess that run becomes
    layout.device_toolchain_flags (include paths, defines, sysroot, dialect), so
    host-only flags (optimization, debug info, warnings, code generation) are
    not in any device stage's key.
    """
    run = layout.host_toolchain_flags
    if not run:
        return argv
    n = len(run)
    for i in range(1, len(argv) - n + 1):
        if argv[i : i + n] == run:
            return argv[:i] + list(layout.device_toolchain_flags) + argv[i + n :]
    scripts_lib.fail(
        layout.display_label,
        "cannot find the C++ toolchain's flags (%s) in nvcc's device preprocess command for %s: "
        "this nvcc orders -Xcompiler options in a way these rules do not know. "
        "Build this target with staged = False, or report it." % (" ".join(run), arch),
    )


def _machine_flags(argv):
    """The host compile's flags that choose the object's machine (-m64, -m32), for the fatbinary's object."""
    return [a for a in argv[1:] if a in ("-m64", "-m32")]


def fatbin_symbol(layout, module_id):
    """The symbol of a source's fatbinary wrapper in its object.

    With relocatable device code, nvcc's own: `__fatbinwrap<module id>`, a
    global symbol the device link's registration refers to. Otherwise nvcc's
    wrapper is a static `__fatDeviceText`; the object gets it under a hidden
    name of the module id, which the host object refers to (hidden: nothing
    new is exported from a shared library).
    """
    return ("__fatbinwrap" if layout.rdc else "__nv_fatbin") + module_id


def fatbin_declaration(layout, module_id):
    """What the host compile includes where nvcc's stub includes the embedded fatbinary: a declaration.

    So the host compile reads no device code: its key is the host code, the
    stub and this file (which depends on the module id alone), and the same
    host object serves every arch set. CudaEmbedFatbin links the fatbinary's
    bytes in (embed_script).
    """
    lines = [
        "/* rules_cuda_stages: the fatbinary of %s, declared; CudaEmbedFatbin links in its definition. */" % layout.src,
        "#ifndef __SKIP_INTERNAL_FATBINARY_HEADERS",
        '#include "fatbinary_section.h"',
        "#endif",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
    ]
    if layout.rdc:
        # host_runtime.h registers __FATIDNAME(__NV_MODULE_ID): nvcc's global wrapper.
        lines.append("extern const __fatBinC_Wrapper_t %s;" % fatbin_symbol(layout, module_id))
    else:
        lines.append(
            'extern const __fatBinC_Wrapper_t %s __attribute__((visibility("hidden")));' % fatbin_symbol(layout, module_id)
        )
    lines += ["#ifdef __cplusplus", "}", "#endif"]
    if not layout.rdc:
        # host_runtime.h registers &__fatDeviceText: the wrapper nvcc's fatbin.c defines as a static.
        lines.append("#define __fatDeviceText %s" % fatbin_symbol(layout, module_id))
    return "\n".join(lines) + "\n"


def embed_script(layout, exports, fatbinary, host_cc, machine_flags, module_id):
    """CudaEmbedFatbin: the source's object, from the host object and fatbinary's own embedded fatbinary.

    `fatbinary` is nvcc's fatbinary command (files renamed): it runs first,
    writing the fatbinary and its C form, a temporary file of the script
    (one stage, not two: a separate action would save only fatbinary's tens
    of ms on a host-only edit, docs/performance.md). The C form (what nvcc's
    host compile includes) is compiled
    as C on its own: the same wrapper and data in the same sections
    (.nvFatBinSegment, .nv_fatbin or __nv_relfatbin) as in nvcc's object. For
    whole-program code its static wrapper gets a hidden alias named from the
    module id, which the host object refers to; relocatable code's wrapper is
    already the global `__fatbinwrap<module id>`. `ld -r` makes one object of
    the two, so the rules' objects stay one per source, as nvcc's are.
    """
    symbol = fatbin_symbol(layout, module_id)
    # -w: the code is fatbinary's, written for nvcc's C++ host compile; as C,
    # gcc warns about its relocatable wrapper (`extern const ... = {...}`,
    # which C++ needs for external linkage), on every rdc source.
    compile_c = [host_cc, "-c", "-x", "c", "-w"] + machine_flags + [
        "-I" + layout.toolkit_root + "/include",
        "-D__NV_MODULE_ID=" + module_id,
        "-",
        "-o",
    ]
    alias = 'extern const __fatBinC_Wrapper_t %s __attribute__((alias("__fatDeviceText"), visibility("hidden")));' % symbol
    lines = scripts_lib.preamble(scripts_lib.stage_comment(layout.label, layout.src, stages.EMBED_FATBIN.mnemonic), [])
    lines.append("set -e")
    for name, value in exports:
        lines.append("%s=%s; export %s" % (name, value, name))
    lines += scripts_lib.temp_dir_lines()
    source = '"$tmp/fatbin.c"'
    at = [i for i, a in enumerate(fatbinary) if a.startswith("--embedded-fatbin=")]
    if len(at) != 1:
        scripts_lib.fail(layout.display_label, "nvcc's fatbinary command has %d --embedded-fatbin options, not one" % len(at))
    lines.append(" ".join(
        "--embedded-fatbin=" + source if i == at[0] else shlex.quote(a) for i, a in enumerate(fatbinary)) + " || exit $?")
    if layout.rdc:
        extra = []
        if layout.link_marker:
            # The object needs what every device link of it defines: a link without one names the fix.
            extra.append(
                'extern char %s __attribute__((visibility("hidden"))); '
                "static char *const __rules_cuda_stages_device_link_check __attribute__((used)) = &%s;"
                % (layout.link_marker, layout.link_marker)
            )
    else:
        extra = [alias]
    if extra:
        lines.append(
            "{ cat %s; printf '%%s\\n' %s; } | %s \"$tmp/fatbin.o\""
            % (source, " ".join(shlex.quote(e) for e in extra), " ".join(shlex.quote(a) for a in compile_c))
        )
    else:
        lines.append("%s \"$tmp/fatbin.o\" < %s" % (" ".join(shlex.quote(a) for a in compile_c), source))
    link = [host_cc, "-r", "-nostdlib", "-o", layout.files[KEYS.obj], layout.files[KEYS.host_obj]]
    lines.append(" ".join(shlex.quote(a) for a in link) + ' "$tmp/fatbin.o"')
    return "\n".join(lines) + "\n"


def module_id_of(layout):
    """The module id CudaPlan writes for the layout's source (module_id.py)."""
    from tools.nvcc_plan import module_id

    return module_id.module_id(layout.id_label, layout.src_short_path)


def device_object_script(layout, exports, fatbinary_argv, host_cc, module_id):
    """A script that wraps one arch's relocatable device code of a source as nvcc's object carries it.

    nvlink names each linked module after the `__nv_module_id` of the object
    it came from, and the host object of the source registers itself under
    that name; so the device link (CudaDeviceLink) must read objects, not
    bare cubins. This script makes, for one arch, the device-only part of
    the object nvcc would make: a fatbinary of that arch's image, made with
    nvcc's own fatbinary options for this source, embedded by fatbinary's own
    C wrapper, plus the module id. The device link runs it for each input, so
    its key holds only that arch's code.

    Usage: device_object.sh KIND SM IMAGE OUT  (KIND elf or nvvm, SM e.g. 90)
    """
    keep = [a for a in fatbinary_argv[1:] if not a.startswith(("--image3=", "--embedded-fatbin=", "--create="))]
    fatbinary = [fatbinary_argv[0]] + keep + ["--image3=kind=$1,sm=$2,file=$3", "--embedded-fatbin=$4.fatbin.c"]
    compile_c = [
        host_cc,
        "-c",
        "-x",
        "c++",
        "-I" + layout.toolkit_root + "/include",
        "-D__NV_MODULE_ID=" + module_id,
        "$4.c",
        "-o",
        "$4",
    ]
    lines = scripts_lib.preamble(
        "one arch of the relocatable device code of %s (%s), as an object for nvlink." % (layout.src, layout.label),
        [],
    )
    lines.insert(2, "# Usage: device_object.sh KIND SM IMAGE OUT (KIND: elf or nvvm; SM: e.g. 90)")
    lines.insert(3, "set -e")
    for name, value in exports:
        lines.append("%s=%s; export %s" % (name, value, name))
    lines += [
        " ".join(scripts_lib.quote_keeping_params(a) for a in fatbinary),
        "printf '#include \"%s\"\\nstatic const unsigned char __module_id_str[] __attribute__((used, section(\"__nv_module_id\"))) = \"%s\";\\n' \"$4.fatbin.c\" "
        + shlex.quote(module_id)
        + " > \"$4.c\"",
        " ".join(scripts_lib.quote_keeping_params(a) for a in compile_c),
        'rm -f "$4.c" "$4.fatbin.c"',
    ]
    return "\n".join(lines) + "\n"
