"""The stage scripts of one source's staged compile, from nvcc's own plan.

`for_source(plan, layout)` checks that nvcc's plan (`nvcc --dryrun` with the
target's flags) has exactly the stages the layout declares (one device
preprocess + cicc per virtual arch, one ptxas per real arch, ...), and writes
each stage's command with every temporary file renamed to the file Bazel
declared for it, every toolkit path spelled from the execroot, and the rules'
module id file in place of the one cudafe++ would generate.
"""

import os
import shlex

from tools.nvcc_plan import dryrun
from tools.nvcc_plan import scripts as scripts_lib
from tools.nvcc_plan import stages


# Stages whose command defines __CUDA_ARCH_LIST__ (gcc -E and the host compile).
_ARCH_LIST_STAGES = ("host_preprocess", "device_preprocess", "host_compile")


def for_source(plan, layout):
    """Returns {script path: content} for every stage of `plan` (a CompileLayout)."""
    unknown = [s for s in plan.commands if s.kind in ("unknown", "nvlink")]
    if unknown:
        scripts_lib.fail(
            layout.display_label,
            "nvcc's plan for these options runs %s, which is not a stage these rules can run "
            "(options: %s). Remove the option, or build this target with staged = False."
            % (", ".join(repr(" ".join(s.argv[:3])) for s in unknown), " ".join(layout.user_options) or "none"),
        )

    def only(kind):
        return scripts_lib.only(plan, kind, layout.display_label, "stage in nvcc's plan")

    host_pp, frontend, fatbinary, host_compile = (
        only("host_preprocess"),
        only("frontend"),
        only("fatbinary"),
        only("host_compile"),
    )
    ciccs = {s.arch: s for s in plan.by_kind("cicc")}
    dpps = {s.arch: s for s in plan.by_kind("device_preprocess")}
    ptxases = {"%s/%s" % (s.virtual_arch, s.arch): s for s in plan.by_kind("ptxas")}
    virtual = layout.virtual_archs
    if sorted(ciccs) != sorted(virtual) or sorted(dpps) != sorted(virtual):
        scripts_lib.fail(layout.display_label, "nvcc plans virtual archs %s, the rule declared %s" % (sorted(ciccs), sorted(virtual)))
    if sorted(ptxases) != sorted(layout.real_keys):
        scripts_lib.fail(layout.display_label, "nvcc plans real archs %s, the rule declared %s" % (sorted(ptxases), sorted(layout.real_keys)))

    if plan.relocatable != layout.rdc:
        scripts_lib.fail(
            layout.display_label,
            "nvcc plans %s device code, the rule declared %s" % (
                "relocatable" if plan.relocatable else "whole-program", "relocatable" if layout.rdc else "whole-program"),
        )
    files = layout.files
    renames = {
        host_pp.outputs[0]: files["cpp4"],
        frontend.outputs[0]: files["cudafe1_cpp"],
        dryrun.value_after(frontend.argv, "--module_id_file_name"): layout.module_id_file,
    }
    nvcc_stub_name = dryrun.value_after(frontend.argv, "--stub_file_name")
    renames[nvcc_stub_name] = layout.stub_name
    stub_arch = None
    for arch, cicc in ciccs.items():
        renames[dpps[arch].outputs[0]] = files["cpp1/" + arch]
        renames[dryrun.value_after(cicc.argv, "-o")] = files["ptx/" + arch]
        renames[dryrun.value_after(cicc.argv, "--gen_c_file_name")] = files["cicc_c/" + arch]
        stub = dryrun.value_after(cicc.argv, "--stub_file_name")
        renames[stub] = files["cicc_stub/" + arch]
        if os.path.basename(stub) == os.path.basename(nvcc_stub_name):
            stub_arch = arch
        renames[dryrun.value_after(cicc.argv, "--gen_device_file_name")] = files["cicc_gpu/" + arch]
        renames[dryrun.value_after(cicc.argv, "--include_file_name")] = layout.fatbin_c_name
    if stub_arch != layout.stub_arch:
        scripts_lib.fail(
            layout.display_label,
            "the host compile includes the registration stub of %s, the rule expected %s" % (stub_arch, layout.stub_arch),
        )
    for key, ptxas in ptxases.items():
        renames[ptxas.outputs[0]] = files["cubin/" + key]
    renames[fatbinary.outputs[0]] = files["fatbin_c"]
    renames[host_compile.outputs[0]] = files["host_obj"]
    rename = scripts_lib.Renamer(renames)

    env = plan.env_dict()
    toolkit = scripts_lib.ToolkitPaths(env, layout.toolkit_root)
    tool_paths = {name: toolkit.tool(name) for name in ("cudafe++", "ptxas", "fatbinary", "nvlink")}
    pinned_list = layout.pinned_arch_list

    def command(stage):
        argv = [toolkit.rewrite(rename(a)) for a in stage.argv]
        if pinned_list and stage.kind in _ARCH_LIST_STAGES:
            # The shipped set's list instead of nvcc's (the compiled archs are a
            # subset of it): the same command as in a build of the whole set.
            pinned = [i for i, a in enumerate(argv) if a.startswith("-D__CUDA_ARCH_LIST__=")]
            if len(pinned) != 1:
                scripts_lib.fail(layout.display_label, "cannot pin __CUDA_ARCH_LIST__: nvcc's %s command defines it %d times" % (stage.kind, len(pinned)))
            argv[pinned[0]] = "-D__CUDA_ARCH_LIST__=" + pinned_list
        # The tool itself by its plain path (an action may hold no file of
        # bin/, so <root>/bin/../nvvm/bin/cicc would not resolve).
        argv[0] = tool_paths.get(argv[0], scripts_lib.normpath(argv[0]))
        return argv

    exports = scripts_lib.env_exports(
        layout.toolkit_root,
        nvvmir_library_dir=scripts_lib.normpath(toolkit.rewrite(env.get("NVVMIR_LIBRARY_DIR", ""))),
    )
    out = {}

    def emit(stage, argv, inst=None, hints=False, post=()):
        """The script of one instance of `stage` (a record of the stage table): `argv`, with hints or shell lines after it."""
        inst = inst or {}
        arch = inst.get("real") or inst.get("virtual") or ""
        out[layout.scripts[stages.instance_key(stage.kind, inst)]] = scripts_lib.stage_script(
            layout.label, layout.src, stage.mnemonic, arch, exports, argv, hints, post
        )

    emit(stages.HOST_PREPROCESS, command(host_pp), hints=True)

    fe = [a for a in command(frontend) if a != "--gen_module_id_file"]
    scripts_lib.set_value(fe, "--orig_src_path_name", layout.src)
    # The host compile's input: the same host code whatever the device code's
    # text, so a device-only edit that keeps the lines re-runs no host compile.
    emit(stages.FRONTEND, fe, post=scripts_lib.blank_disabled_device_code(files["cudafe1_cpp"]))

    for arch in virtual:
        emit(stages.DEVICE_PREPROCESS, device_toolchain_flags(layout, command(dpps[arch]), arch), {"virtual": arch}, hints=True)
        cc = command(ciccs[arch])
        scripts_lib.set_value(cc, "--orig_src_path_name", layout.src)
        emit(stages.CICC, cc, {"virtual": arch})
    for a in layout.archs:
        for real in a.reals:
            emit(stages.PTXAS, command(ptxases["%s/%s" % (a.virtual, real)]), {"virtual": a.virtual, "real": real})

    emit(stages.FATBINARY, command(fatbinary) + ["--create=" + files["fatbin"]])

    hc = command(host_compile)
    for directory in layout.host_compile_iquote:
        hc[-2:-2] = ["-iquote", directory]  # before `-o OUT`
    emit(stages.HOST_COMPILE, hc, hints=True)

    the_id = module_id_of(layout)
    out[files["fatbin_decl"]] = fatbin_declaration(layout, the_id)
    out[layout.scripts["embed_fatbin"]] = embed_script(layout, exports, hc[0], _machine_flags(hc), the_id)
    if layout.rdc:
        out[layout.scripts[stages.DEVICE_OBJECT_SCRIPT]] = device_object_script(
            layout, exports, command(fatbinary), hc[0], the_id
        )
    return out


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


def embed_script(layout, exports, host_cc, machine_flags, module_id):
    """CudaEmbedFatbin: the source's object, from the host object and fatbinary's own embedded fatbinary.

    fatbinary's <stem>.fatbin.c (what nvcc's host compile includes) is compiled
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
    lines += ['tmp="$(mktemp -d)"', "trap 'rm -rf \"$tmp\"' EXIT"]
    source = shlex.quote(layout.files["fatbin_c"])
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
    link = [host_cc, "-r", "-nostdlib", "-o", layout.files["obj"], layout.files["host_obj"]]
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
