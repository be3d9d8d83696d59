"""Fidelity: every PTX and cubin of a staged cuda_library equals nvcc's own.

For one staged target it replays, in a scratch execroot laid out like Bazel's,
the exact nvcc command the CudaPlan action planned from (plan/nvcc_args.json),
with --keep (and, for a target compiling a subset of the shipped set, the
shipped set's __CUDA_ARCH_LIST__ that its stages get), and compares each PTX and cubin byte for byte after swapping the
rules' module id for the one nvcc generated (both have the same length).

  --expect=equal    the staged outputs must equal nvcc's (the fidelity check)
  --expect=differ   with --reference_extra, some output must differ (proves the
                    check can fail)
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from absl import app
from absl import flags
from runfiles import runfiles

from tests.fidelity import nvcc_compare
from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import dryrun
from tools.nvcc_plan import stages

FLAGS = flags.FLAGS
flags.DEFINE_string("target", None, "name of the staged cuda_library (its _cuda/<name>/ tree)")
flags.DEFINE_string("package", None, "package of that target")
flags.DEFINE_enum("expect", "equal", ["equal", "differ"], "what the comparison must show")
flags.DEFINE_list("reference_extra", [], "extra nvcc options for the reference run only")
flags.DEFINE_string("device_link", None, "name of a cuda_device_link: compare its linked cubins with nvcc -dlink's instead")
flags.DEFINE_string("toolkit", None, "the CUDA version the target was built with (a transition): nvcc must report it")

# The nvcc of every reference run: (its path in the execroot, its release).
_NVCCS = []


def _runfiles_root():
    r = runfiles.Create()
    marker = r.Rlocation("rules_cuda_stages/tests/fidelity/fidelity_test.py")
    # <root>/_main/tests/fidelity/fidelity_test.py
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(marker))))


def _short_path(execroot_path):
    """bazel-out/<cfg>/bin/<short> or <short> -> <short>."""
    parts = execroot_path.split("/")
    if parts[0] == "bazel-out":
        return "/".join(parts[3:])
    return execroot_path


def _runfile(root, execroot_path):
    short = _short_path(execroot_path)
    if short.startswith("external/"):
        return os.path.join(root, short[len("external/"):])
    return os.path.join(root, "_main", short)


def _scratch_execroot(root, layout):
    """A directory where the execroot-relative paths of the plan resolve."""
    d = tempfile.mkdtemp(prefix="execroot.", dir=os.environ.get("TEST_TMPDIR"))
    os.makedirs(os.path.join(d, "external"))
    for entry in os.listdir(root):
        if entry == "_main":
            for top in os.listdir(os.path.join(root, "_main")):
                if top == "external":  # legacy external runfiles; use the repositories themselves
                    continue
                os.symlink(os.path.join(root, "_main", top), os.path.join(d, top))
        else:
            os.symlink(os.path.join(root, entry), os.path.join(d, "external", entry))
    return d


def outdir_env():
    return os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")


def _toolkit_repo(execroot):
    for entry in os.listdir(os.path.join(execroot, "external")):
        if os.path.exists(os.path.join(execroot, "external", entry, "bin", "ptxas")):
            return entry
    raise AssertionError("no toolkit with bin/ptxas in the runfiles")


def _reference_run(root, layout, nvcc_args, inputs=()):
    """Runs nvcc's own command (`nvcc_args` + `inputs`, --keep) in a scratch execroot.

    Returns (execroot, keep directory, nvcc's plan of that command).
    """
    execroot = _scratch_execroot(root, layout)
    keep = os.path.join(execroot, "keep")
    os.makedirs(keep)
    nvcc = os.path.join(layout.toolkit_root, "bin", "nvcc")
    args = list(nvcc_args)
    args[args.index("-o") + 1] = os.path.join(keep, "reference.o")
    pinned = getattr(layout, "pinned_arch_list", "")
    if pinned:
        # The target compiles a subset of the shipped set, so its stages have the
        # shipped set's __CUDA_ARCH_LIST__ instead of nvcc's: nvcc's gcc commands
        # (host and device preprocess, host compile) get it too, as a -D after
        # nvcc's own (gcc keeps the last; "\," keeps nvcc from splitting it).
        args.append("-Xcompiler=-D__CUDA_ARCH_LIST__=" + pinned.replace(",", "\\,"))
    args += list(inputs) + FLAGS.reference_extra + ["--keep", "--keep-dir", keep]
    plan = dryrun.plan_from_text(dryrun.run_dryrun(nvcc, args, cwd=execroot))
    # The same convention as the staged scripts (and Bazel's C++ actions):
    # debug info names the working directory /proc/self/cwd.
    env = dict(os.environ, PWD="/proc/self/cwd")
    proc = subprocess.run([nvcc] + args, cwd=execroot, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError("reference `nvcc %s` failed:\n%s" % (" ".join(args), proc.stderr))
    version = subprocess.run([nvcc, "--version"], cwd=execroot, capture_output=True, text=True).stdout
    release = re.search(r"release ([0-9.]+)", version)
    _NVCCS.append((nvcc, release.group(1) if release else "unknown"))
    return execroot, keep, plan


_STUB_MARKER = re.compile(rb'^# 1 "[^"\n]*\.cudafe1\.stub\.c"$', re.M)


def _compare_stub(root, layout, plan, execroot, our_id, nvcc_id):
    """CudaFrontend's registration stub against the one nvcc's cicc of the same arch wrote, or None (not compared).

    They may differ in one line, if the stub has it: the marker `# 1 "<file>"` naming the stub
    file itself (nvcc's temporary file, the rules' declared one); and the
    fatbinary's name the stub #includes (nvcc's temporary file, the rules'
    declaration of it: compile_scripts.fatbin_declaration). Both are replaced
    by one spelling before the byte comparison; nothing else is.
    """
    ciccs = {c.arch: c for c in plan.by_step(stages.STEP_CICC)}
    arch = layout.registration_arch
    if arch not in ciccs:
        print("  registration stub %s: not compared (the reference compiles no %s)" % (arch, arch))
        return None
    with open(_runfile(root, layout.files[stages.KEYS.registration_stub]), "rb") as f:
        ours = nvcc_compare.swap(f.read(), our_id, nvcc_id)
    with open(os.path.join(execroot, dryrun.value_after(ciccs[arch].argv, "--stub_file_name")), "rb") as f:
        theirs = f.read()
    included = os.path.basename(dryrun.value_after(ciccs[arch].argv, "--include_file_name")).encode()
    theirs = theirs.replace(included, layout.fatbin_c_name.encode())
    ours, n_ours = _STUB_MARKER.subn(b'# 1 "<the stub>"', ours)
    theirs, n_theirs = _STUB_MARKER.subn(b'# 1 "<the stub>"', theirs)
    same = ours == theirs and n_ours == n_theirs  # (not every stub has it: none with -G or without kernels)
    first = None if same else nvcc_compare.first_difference(ours, theirs)
    return ("registration stub " + arch, same, first, len(ours), len(theirs), " (but its own file's name)")


def compare(root, layout_path):
    layout = layout_lib.load_compile(layout_path)
    with open(_runfile(root, layout.nvcc_args_file)) as f:
        nvcc_args = json.load(f)
    with open(_runfile(root, layout.module_id_file)) as f:
        our_id = f.read().strip()

    execroot, keep, plan = _reference_run(root, layout, nvcc_args)
    with open(glob.glob(os.path.join(keep, "*.module_id"))[0]) as f:
        nvcc_id = f.read().strip()
    if len(nvcc_id) != len(our_id):
        raise AssertionError("module ids differ in length: nvcc %r, ours %r" % (nvcc_id, our_id))

    pairs = []  # (what, staged file, reference file)
    for cicc in plan.by_step(stages.STEP_CICC):
        pairs.append(("ptx " + cicc.arch, layout.files[stages.KEYS.ptx + "/" + cicc.arch], dryrun.value_after(cicc.argv, "-o")))
    for ptxas in plan.by_step(stages.STEP_PTXAS):
        key = "%s/%s" % (ptxas.virtual_arch, ptxas.arch)
        pairs.append(("cubin " + key, layout.files[stages.KEYS.cubin + "/" + key], ptxas.outputs[0]))
    ptxas_by_output = {p.outputs[0]: p for p in plan.by_step(stages.STEP_PTXAS)}
    results = []
    stub = _compare_stub(root, layout, plan, execroot, our_id, nvcc_id)
    if stub:
        results.append(stub)
    for what, staged, reference in pairs:
        with open(_runfile(root, staged), "rb") as f:
            ours = nvcc_compare.swap(f.read(), our_id, nvcc_id)
        with open(os.path.join(execroot, reference), "rb") as f:
            theirs = f.read()
        if what.startswith("ptx"):
            # Debug sections spell strings (mangled names holding the module
            # id) as `.b8 95,90,...` byte lists: compare those decoded.
            ours = nvcc_compare.decode_b8(ours, nvcc_id, our_id)
            theirs = nvcc_compare.decode_b8(theirs, nvcc_id, our_id)
        same = ours == theirs
        note = ""
        if not same and reference in ptxas_by_output and nvcc_compare.has_line_info(ptxas_by_output[reference].argv):
            # With line info, ptxas stat()s the files named in the PTX and records
            # their mtimes and sizes in the cubin's line table: nvcc's own cubin
            # depends on when the checkout was made. The staged ptxas never sees
            # the sources (they are not its inputs), so those fields are 0. Check
            # the cubin against nvcc's exact ptxas command on nvcc's own PTX, run
            # where the sources do not exist.
            key = what.split(" ", 1)[1]
            rerun = nvcc_compare.ptxas_without_sources(
                os.path.join(execroot, "external", _toolkit_repo(execroot), "bin", "ptxas"),
                ptxas_by_output[reference].argv,
                os.path.join(execroot, [a for a in ptxas_by_output[reference].argv if a.endswith(".ptx")][-1]),
                os.path.basename(layout.files["ptx/" + key.split("/")[0]]),
                os.path.basename(staged),
            )
            if outdir_env():
                with open(os.path.join(outdir_env(), what.replace(" ", "_").replace("/", "_") + ".rerun"), "wb") as f:
                    f.write(rerun)
            if ours == rerun:
                same = True
                note = " (= nvcc's ptxas command on nvcc's PTX; nvcc's own cubin also records the sources' mtimes and sizes and, with -G, its own temp file names)"
        first = None
        if not same:
            first = nvcc_compare.first_difference(ours, theirs)
            if what.startswith("ptx"):
                lo = max(0, first - 120)
                print("    staged:    %r" % ours[lo : first + 120])
                print("    reference: %r" % theirs[lo : first + 120])
            # Keep both for inspection (bazel-testlogs/<test>/test.outputs/).
            outdir = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
            if outdir:
                name = what.replace(" ", "_").replace("/", "_")
                for suffix, data in (("staged", ours), ("nvcc", theirs)):
                    with open(os.path.join(outdir, "%s.%s" % (name, suffix)), "wb") as f:
                        f.write(data)
        results.append((what, same, first, len(ours), len(theirs), note))
    return "%s (%s)" % (layout.src, nvcc_args_summary(layout)), results


def compare_device_link(root, layout_path):
    """The linked cubins and registration list of a cuda_device_link against `nvcc -dlink`'s.

    nvcc -dlink reads the host objects of the linked sources (made by the
    staged rules, whose relocatable cubins and LTO IR the compile fidelity
    tests check against nvcc's); the device link reads each source's code
    for one arch. Both must link the same cubin.
    """
    layout = layout_lib.load_link(layout_path)
    with open(_runfile(root, layout.nvcc_args_file)) as f:
        nvcc_args = json.load(f)
    args = [a for a in nvcc_args if a != stages.DEVICE_LINK_PLACEHOLDER]
    if len(layout.archs) == 1:
        # nvcc passes nvlink -report-arch only for more than one arch; every
        # CudaDeviceLink passes it (link_scripts.with_report_arch), so that an
        # arch's device link is one action in every arch set. Its cubin is the
        # one nvcc links for that arch among others: the reference gets the
        # option too (nvlink records its options canonically ordered in
        # .note.nv.tkinfo, so where nvcc puts it does not show).
        args.append("-Xnvlink=-report-arch")
    execroot, _, plan = _reference_run(
        root,
        layout,
        args,
        inputs=[_runfile(root, o) for o in layout.objects],
    )
    pairs = []
    for nvlink in plan.by_step(stages.STEP_NVLINK):
        pairs.append(("linked cubin " + nvlink.arch, layout.files[stages.KEYS.cubin + "/" + nvlink.arch], nvlink.outputs[0]))
        reg = dryrun.value_after(nvlink.argv, "--register-link-binaries")
    pairs.append(("registration list", layout.files[stages.KEYS.reg_c + "/" + layout.archs[-1]], reg))
    results = []
    for what, staged, reference in pairs:
        with open(_runfile(root, staged), "rb") as f:
            ours = f.read()
        with open(os.path.join(execroot, reference), "rb") as f:
            theirs = f.read()
        same = ours == theirs
        results.append((what, same, None if same else nvcc_compare.first_difference(ours, theirs), len(ours), len(theirs), ""))
    title = "device link of %d objects (archs=%s, %s)" % (
        len(layout.objects), ",".join(layout.archs), "lto" if layout.lto else "no lto")
    return title, results


def main(argv):
    del argv
    root = _runfiles_root()
    if FLAGS.device_link:
        pattern = os.path.join(root, "_main", FLAGS.package, "_cuda_dlink", FLAGS.device_link, "plan", "layout.json")
        return _report(root, sorted(glob.glob(pattern)), pattern, compare_device_link)
    pattern = os.path.join(root, "_main", FLAGS.package, "_cuda", FLAGS.target, "**", "plan", "layout.json")
    layouts = sorted(glob.glob(pattern, recursive=True))
    return _report(root, layouts, pattern, compare)


def _report(root, layouts, pattern, compare):
    if not layouts:
        print("no staged layout found at " + pattern, file=sys.stderr)
        return 1
    all_same = True
    for layout_path in layouts:
        title, results = compare(root, layout_path)
        print("%s:" % title)
        for what, same, first, n_ours, n_theirs, note in results:
            all_same &= same
            detail = "identical (%d bytes)%s" % (n_ours, note) if same else "DIFFERENT at byte %s (%d vs %d bytes)" % (first, n_ours, n_theirs)
            print("  %-26s %s" % (what, detail))
        if not results:
            print("  nothing compared")
            return 1
    for nvcc, release in sorted(set(_NVCCS)):
        print("nvcc: %s (CUDA %s)" % (nvcc, release))
        if FLAGS.toolkit and release != FLAGS.toolkit:
            print("FAIL: built for toolkit %s, but the reference nvcc is CUDA %s" % (FLAGS.toolkit, release), file=sys.stderr)
            return 1
    if FLAGS.expect == "equal" and not all_same:
        print("FAIL: staged outputs differ from nvcc's", file=sys.stderr)
        return 1
    if FLAGS.expect == "differ" and all_same:
        print("FAIL: with %s the reference should differ, but every output is identical" % FLAGS.reference_extra, file=sys.stderr)
        return 1
    print("OK: %s" % ("every PTX and cubin equals nvcc's" if FLAGS.expect == "equal" else "the check detects the different flag"))
    return 0


def nvcc_args_summary(layout):
    return "archs=" + ",".join(layout.real_keys + ["ptx:" + a for a in layout.virtual_archs])


if __name__ == "__main__":
    app.run(main)
