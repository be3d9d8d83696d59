"""Turns nvcc's own plan for one source into one shell script per stage.

Run by the CudaPlan action of cuda_library. It runs `nvcc --dryrun` with the
target's flags, checks that the plan has exactly the stages the rule declared
(one device preprocess + cicc per virtual arch, one ptxas per real arch, ...),
and writes each stage's command with every temporary file renamed to the
file Bazel declared for it, every toolkit path made relative to the execroot,
and the module id file of the rules in place of the one cudafe++ would
generate. Each script is the whole command line of one stage action, so that
action's cache key is exactly its own command plus its input files.

Usage:
  plan_stages --layout LAYOUT.json --nvcc PATH -- NVCC_ARGS...
"""

import json
import os
import re
import shlex
import sys

from absl import app
from absl import flags

from tools.nvcc_plan import nvcc_plan_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("layout", None, "JSON file naming the outputs of every stage")
flags.DEFINE_string("nvcc", None, "execroot-relative path of nvcc")

# Host compiler / C library rejections and what to do about them.
_HINTS = [
    (
        "unsupported GNU version",
        "the host compiler is newer than this CUDA version supports (see crt/host_config.h). "
        "Fix: point Bazel's C++ toolchain at a supported gcc, e.g. --repo_env=CC=gcc-14, "
        "or use a newer CUDA toolkit.",
    ),
    (
        "rsqrt",
        "the C library's headers (glibc >= 2.41 declares C23 rsqrt) clash with this CUDA version's "
        "crt/math_functions.h. Fix: compile against an older C library (--sysroot, as tools/bazelw "
        "does) or use a CUDA toolkit whose math_functions.h has _NV_RSQRT_SPECIFIER.",
    ),
]


class LayoutError(Exception):
    pass


def _fail(label, message):
    raise LayoutError("rules_cuda_stages: %s: %s" % (label, message))


def _rewrite_toolkit(token, env, toolkit_root):
    """Spells the toolkit's location as toolkit_root, keeping nvcc's own spelling.

    nvcc is run through toolkit_root, so its _HERE_ is normally
    toolkit_root/bin already and nothing changes (nvcc writes paths like
    <root>/bin/../targets/..., and the fidelity tests expect exactly that). Only
    if nvcc reports another location (e.g. it resolved a symlink) is that
    location replaced.
    """
    here = env.get("_HERE_")
    expected = toolkit_root + "/bin"
    if not here or here == expected:
        return token
    token = re.sub(re.escape(here) + r"(?=/|$)", lambda _: expected, token)
    top = os.path.dirname(os.path.normpath(here))
    return re.sub(re.escape(top) + r"(?=/|$)", lambda _: toolkit_root, token)


def _script(label, src, mnemonic, arch, env_exports, argv, with_hints):
    lines = [
        "#!/bin/sh",
        "# rules_cuda_stages: %s%s of %s (%s), from nvcc's plan." % (mnemonic, " " + arch if arch else "", src, label),
    ]
    for name, value in env_exports:
        lines.append("%s=%s; export %s" % (name, value, name))
    command = " ".join(shlex.quote(a) for a in argv)
    if not with_hints:
        lines.append("exec " + command)
    else:
        lines += [
            'err="$(mktemp)"',
            "%s 2>\"$err\"" % command,
            "rc=$?",
            'cat "$err" >&2',
        ]
        for needle, hint in _HINTS:
            lines.append(
                "if [ $rc -ne 0 ] && grep -q %s \"$err\"; then echo %s >&2; fi"
                % (shlex.quote(needle), shlex.quote("rules_cuda_stages: %s (%s): %s" % (label, mnemonic, hint)))
            )
        lines += ['rm -f "$err"', "exit $rc"]
    return "\n".join(lines) + "\n"


def build_scripts(plan, layout, nvcc_args):
    """Returns {script path: content} for every stage of `plan`."""
    label = layout["label"]
    files = layout["files"]
    scripts = layout["scripts"]
    virtual = layout["virtual_archs"]
    reals = layout["real_archs"]  # ["compute_80/sm_80", ...]

    unknown = [s for s in plan.stages if s.kind in ("unknown", "nvlink")]
    if unknown:
        _fail(
            label,
            "nvcc's plan for these options runs %s, which is not a stage these rules can run "
            "(options: %s). Remove the option, or build this target with staged = False."
            % (", ".join(repr(" ".join(s.argv[:3])) for s in unknown), " ".join(layout["user_options"]) or "none"),
        )

    def only(kind):
        stages = plan.by_kind(kind)
        if len(stages) != 1:
            _fail(label, "expected one %s stage in nvcc's plan, found %d" % (kind, len(stages)))
        return stages[0]

    host_pp, frontend, fatbinary, host_compile = (
        only("host_preprocess"),
        only("frontend"),
        only("fatbinary"),
        only("host_compile"),
    )
    ciccs = {s.arch: s for s in plan.by_kind("cicc")}
    dpps = {s.arch: s for s in plan.by_kind("device_preprocess")}
    ptxases = {"%s/%s" % (s.virtual_arch, s.arch): s for s in plan.by_kind("ptxas")}
    if sorted(ciccs) != sorted(virtual) or sorted(dpps) != sorted(virtual):
        _fail(label, "nvcc plans virtual archs %s, the rule declared %s" % (sorted(ciccs), sorted(virtual)))
    if sorted(ptxases) != sorted(reals):
        _fail(label, "nvcc plans real archs %s, the rule declared %s" % (sorted(ptxases), sorted(reals)))

    renames = {}
    renames[host_pp.outputs[0]] = files["cpp4"]
    renames[frontend.outputs[0]] = files["cudafe1_cpp"]
    nvcc_module_id = nvcc_plan_lib.value_after(frontend.argv, "--module_id_file_name")
    renames[nvcc_module_id] = layout["module_id"]
    nvcc_stub_name = nvcc_plan_lib.value_after(frontend.argv, "--stub_file_name")
    renames[nvcc_stub_name] = files["stub_name"]
    stub_arch = None
    for arch, cicc in ciccs.items():
        renames[dpps[arch].outputs[0]] = files["cpp1/" + arch]
        renames[nvcc_plan_lib.value_after(cicc.argv, "-o")] = files["ptx/" + arch]
        renames[nvcc_plan_lib.value_after(cicc.argv, "--gen_c_file_name")] = files["cicc_c/" + arch]
        stub = nvcc_plan_lib.value_after(cicc.argv, "--stub_file_name")
        renames[stub] = files["cicc_stub/" + arch]
        if os.path.basename(stub) == os.path.basename(nvcc_stub_name):
            stub_arch = arch
        renames[nvcc_plan_lib.value_after(cicc.argv, "--gen_device_file_name")] = files["cicc_gpu/" + arch]
        renames[nvcc_plan_lib.value_after(cicc.argv, "--include_file_name")] = files["fatbin_c_name"]
    if stub_arch != layout["host_compile_stub_arch"]:
        _fail(
            label,
            "the host compile includes the registration stub of %s, the rule expected %s"
            % (stub_arch, layout["host_compile_stub_arch"]),
        )
    for key, ptxas in ptxases.items():
        renames[ptxas.outputs[0]] = files["cubin/" + key]
    renames[fatbinary.outputs[0]] = files["fatbin_c"]
    renames[host_compile.outputs[0]] = files["obj"]
    # Longest first, so no name is replaced inside a longer one.
    ordered = sorted((k for k in renames if k), key=len, reverse=True)

    env = plan.env_dict()
    toolkit_root = layout["toolkit_root"]

    def rewrite(token):
        for old in ordered:
            if old in token:
                token = token.replace(old, renames[old])
        return _rewrite_toolkit(token, env, toolkit_root)

    tool_paths = {
        "cudafe++": toolkit_root + "/bin/cudafe++",
        "ptxas": toolkit_root + "/bin/ptxas",
        "fatbinary": toolkit_root + "/bin/fatbinary",
        "nvlink": toolkit_root + "/bin/nvlink",
    }

    pinned_list = layout.get("pinned_arch_list", "")

    def command(stage):
        argv = [rewrite(a) for a in stage.argv]
        if pinned_list and stage.kind in ("host_preprocess", "device_preprocess", "host_compile"):
            # The shipped set's list instead of nvcc's (the compiled archs are a
            # subset of it): the same command as in a build of the whole set.
            pinned = [i for i, a in enumerate(argv) if a.startswith("-D__CUDA_ARCH_LIST__=")]
            if len(pinned) != 1:
                _fail(label, "cannot pin __CUDA_ARCH_LIST__: nvcc's %s command defines it %d times" % (stage.kind, len(pinned)))
            argv[pinned[0]] = "-D__CUDA_ARCH_LIST__=" + pinned_list
        # The tool itself by its plain path (an action may hold no file of
        # bin/, so <root>/bin/../nvvm/bin/cicc would not resolve).
        argv[0] = tool_paths.get(argv[0], _normpath(argv[0]))
        return argv

    env_exports = [
        # cicc (-G) and gcc (-g) record the working directory in debug info;
        # both take it from $PWD when that names the same directory.
        ("PWD", "/proc/self/cwd"),
        ("NVVMIR_LIBRARY_DIR", _normpath(_rewrite_toolkit(env.get("NVVMIR_LIBRARY_DIR", ""), env, toolkit_root))),
        ("PATH", '"%s/nvvm/bin:%s/bin:$PATH"' % (toolkit_root, toolkit_root)),
    ]
    src = layout["src"]
    out = {}

    def emit(key, stage, mnemonic, arch, argv, hints=False):
        out[scripts[key]] = _script(label, src, mnemonic, arch, env_exports, argv, hints)

    emit("host_preprocess", host_pp, "CudaHostPreprocess", "", command(host_pp), hints=True)

    fe = command(frontend)
    fe = [a for a in fe if a != "--gen_module_id_file"]
    _set_value(fe, "--orig_src_path_name", src)
    emit("frontend", frontend, "CudaFrontend", "", fe)

    for arch in virtual:
        emit("device_preprocess/" + arch, dpps[arch], "CudaDevicePreprocess", arch, command(dpps[arch]), hints=True)
        cc = command(ciccs[arch])
        _set_value(cc, "--orig_src_path_name", src)
        emit("cicc/" + arch, ciccs[arch], "CudaCicc", arch, cc)
    for key in reals:
        emit("ptxas/" + key, ptxases[key], "CudaPtxas", key.split("/")[1], command(ptxases[key]))

    fb = command(fatbinary) + ["--create=" + files["fatbin"]]
    emit("fatbinary", fatbinary, "CudaFatbinary", "", fb)

    hc = command(host_compile)
    for directory in layout["iquote"]:
        hc[-2:-2] = ["-iquote", directory]  # before `-o OUT`
    emit("host_compile", host_compile, "CudaHostCompile", "", hc, hints=True)

    if layout.get("rdc"):
        out[scripts["device_object"]] = device_object_script(
            label, src, env_exports, command(fatbinary), hc[0], layout["module_id_string"], toolkit_root
        )
    return out


def device_object_script(label, src, env_exports, fatbinary_argv, host_cc, module_id, toolkit_root):
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
    keep = [
        a
        for a in fatbinary_argv[1:]
        if not a.startswith(("--image3=", "--embedded-fatbin=", "--create="))
    ]
    fatbinary = [fatbinary_argv[0]] + keep + ['--image3=kind=$1,sm=$2,file=$3', '--embedded-fatbin=$4.fatbin.c']
    compile_c = [
        host_cc,
        "-c",
        "-x",
        "c++",
        "-I" + toolkit_root + "/include",
        "-D__NV_MODULE_ID=" + module_id,
        "$4.c",
        "-o",
        "$4",
    ]
    lines = [
        "#!/bin/sh",
        "# rules_cuda_stages: one arch of the relocatable device code of %s (%s), as an object for nvlink." % (src, label),
        "# Usage: device_object.sh KIND SM IMAGE OUT (KIND: elf or nvvm; SM: e.g. 90)",
        "set -e",
    ]
    for name, value in env_exports:
        lines.append("%s=%s; export %s" % (name, value, name))
    lines += [
        " ".join(_quote_keeping_params(a) for a in fatbinary),
        "printf '#include \"%s\"\\nstatic const unsigned char __module_id_str[] __attribute__((used, section(\"__nv_module_id\"))) = \"%s\";\\n' \"$4.fatbin.c\" "
        + shlex.quote(module_id)
        + " > \"$4.c\"",
        " ".join(_quote_keeping_params(a) for a in compile_c),
        'rm -f "$4.c" "$4.fatbin.c"',
    ]
    return "\n".join(lines) + "\n"


def _quote_keeping_params(arg):
    """Shell-quotes arg but lets $1..$4 expand."""
    parts = re.split(r"(\$[1-9])", arg)
    return "".join(p if re.fullmatch(r"\$[1-9]", p) else (shlex.quote(p) if p else "") for p in parts) or "''"


def _normpath(path):
    return os.path.normpath(path) if "/" in path else path


def _set_value(argv, flag, value):
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            argv[i + 1] = value


def plan_and_write(argv, build):
    """The CudaPlan action: runs `nvcc --dryrun`, writes the scripts `build(plan, layout, nvcc_args)` returns.

    Shared by this tool (a source's stages) and plan_device_link (a device link's).
    """
    if not FLAGS.layout or not FLAGS.nvcc:
        raise app.UsageError("--layout and --nvcc are required")
    with open(FLAGS.layout) as f:
        layout = json.load(f)
    nvcc_args = argv[1:]
    try:
        # Run through the canonical execroot spelling, so nvcc's own paths
        # (_HERE_, TOP, its include directories) are spelled that way too.
        nvcc = FLAGS.nvcc if os.path.isabs(FLAGS.nvcc) else os.path.join("/proc/self/cwd", FLAGS.nvcc)
        text = nvcc_plan_lib.run_dryrun(nvcc, nvcc_args)
        plan = nvcc_plan_lib.plan_from_text(text)
        scripts = build(plan, layout, nvcc_args)
    except (LayoutError, nvcc_plan_lib.PlanError) as e:
        msg = str(e)
        if not msg.startswith("rules_cuda_stages:"):
            msg = "rules_cuda_stages: %s: %s" % (layout.get("label", "?"), msg)
        print(msg, file=sys.stderr)
        return 1
    for path, content in scripts.items():
        with open(path, "w") as f:
            f.write(content)
    # The exact nvcc invocation these scripts replay (for fidelity checks and debugging).
    with open(layout["nvcc_args_file"], "w") as f:
        json.dump(nvcc_args, f, indent=1)
        f.write("\n")
    return 0


def main(argv):
    return plan_and_write(argv, build_scripts)

if __name__ == "__main__":
    app.run(main)
