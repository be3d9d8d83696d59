"""Fidelity of clang in stages: a cuda_library compiled by clang equals clang's own one-shot compile.

For one target built with --@rules_cuda_stages//cuda_rules:compiler=clang it
replays, in a scratch execroot laid out like Bazel's, the driver call CudaPlan
planned from (plan/clang_args.json: the rules' arguments and -cuid), as
clang's own one-shot compiles:

- `clang <args> -c <src> -o ref/<stem>.o`: the object, compared byte for
  byte with the staged object (it embeds the fatbinary: every cubin and
  embedded PTX), unless an arch is PTX-only, which clang's one-shot compile
  cannot express;
- `clang <args> --cuda-device-only -S` and `--cuda-device-only -c`: each GPU
  arch's PTX and cubin, compared byte for byte with the staged ones.

For relocatable device code (rdc = True: -fgpu-rdc) the staged object is
clang's object joined (`clang -r`) with the symbol that makes a link without a
device link fail by name, so the object is compared section by section: every
section of clang's object that holds bytes (code, data, the relocatable
fatbinary in __nv_relfatbin, the module id in __nv_module_id) must be in the
staged object with the same bytes; the symbol and relocation tables are
renumbered by the join. And the module id the device link's objects carry
(plan/device_object.sh) must be the one clang's object registers under.

  --expect=equal    every staged output must equal clang's
  --expect=differ   with --reference_extra, some output must differ (proves
                    the check can fail)
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

from absl import app
from absl import flags
from runfiles import runfiles

from tests.fidelity import nvcc_compare
from tools.nvcc_plan import layout as layout_lib
from tools.nvcc_plan import stages

FLAGS = flags.FLAGS
flags.DEFINE_string("target", None, "name of the staged cuda_library (its _cuda/<name>/ tree)")
flags.DEFINE_string("package", None, "package of that target")
flags.DEFINE_enum("expect", "equal", ["equal", "differ"], "what the comparison must show")
flags.DEFINE_list("reference_extra", [], "extra clang options for the reference compiles only")


def _runfiles_root():
    marker = runfiles.Create().Rlocation("rules_cuda_stages/tests/clang/clang_fidelity_test.py")
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(marker))))


def _runfile(root, execroot_path):
    parts = execroot_path.split("/")
    short = "/".join(parts[3:]) if parts[0] == "bazel-out" else execroot_path
    if short.startswith("external/"):
        return os.path.join(root, short[len("external/") :])
    return os.path.join(root, "_main", short)


def _scratch_execroot(root):
    """A directory where the execroot-relative paths of the plan resolve."""
    d = tempfile.mkdtemp(prefix="execroot.", dir=os.environ.get("TEST_TMPDIR"))
    os.makedirs(os.path.join(d, "external"))
    for entry in os.listdir(root):
        if entry == "_main":
            for top in os.listdir(os.path.join(root, "_main")):
                if top != "external":
                    os.symlink(os.path.join(root, "_main", top), os.path.join(d, top))
        else:
            os.symlink(os.path.join(root, entry), os.path.join(d, "external", entry))
    return d


def _without_output(args):
    """The driver call without `-c SRC -o OUT`; and SRC."""
    out = list(args)
    i = out.index("-o")
    del out[i : i + 2]
    i = out.index("-c")
    src = out[i + 1]
    del out[i : i + 2]
    return out, src


def _run(clang, args, cwd):
    env = dict(os.environ, PWD="/proc/self/cwd")
    proc = subprocess.run([clang] + args, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError("reference `%s %s` failed:\n%s" % (clang, " ".join(args), proc.stderr))


def compare_relocatable(root, layout, staged_path, reference_path):
    """[(what, same, staged size, reference size)] of an rdc object's sections, and of its module id."""
    with open(staged_path, "rb") as f:
        ours = nvcc_compare.content_sections(f.read())
    with open(reference_path, "rb") as f:
        theirs = nvcc_compare.content_sections(f.read())
    if "__nv_relfatbin" not in theirs or "__nv_module_id" not in theirs:
        raise AssertionError("clang's object has no relocatable fatbinary or module id: sections %s" % sorted(theirs))
    results = []
    for name, data in sorted(theirs.items()):
        mine = ours.get(name, b"")
        results.append(("object section " + name, mine == data, len(mine), len(data)))
    extra = sorted(set(ours) - set(theirs))
    want = [".data.rel.ro.rules_cuda_stages_device_link_check"] if layout.link_marker else []
    results.append(("sections beyond clang's: %s" % (", ".join(extra) or "none"), extra == want, len(extra), len(want)))
    with open(_runfile(root, layout.scripts[stages.DEVICE_OBJECT_SCRIPT])) as f:
        found = re.search(r"-D__NV_MODULE_ID=(\w+)", f.read())
    clang_id = theirs["__nv_module_id"].rstrip(b"\0").decode()
    ours_id = found.group(1) if found else ""
    results.append(("module id %s of device_object.sh (clang's: %s)" % (ours_id, clang_id), ours_id == clang_id, len(ours_id), len(clang_id)))
    return results


def compare(root, layout_path):
    layout = layout_lib.load_compile(layout_path)
    if layout.table != stages.CLANG_TABLE.name:
        raise AssertionError("%s was not compiled by clang (table %s)" % (layout.display_label, layout.table))
    with open(_runfile(root, layout.nvcc_args_file)) as f:
        call = json.load(f)
    clang, args = call["clang"], call["args"]
    execroot = _scratch_execroot(root)
    ref = os.path.join(execroot, "ref")
    os.makedirs(ref)
    common, src = _without_output(args)
    common += FLAGS.reference_extra
    stem = layout.stem
    pairs = []  # (what, staged file, reference file)

    # The object: clang's one-shot compile. Not for a PTX-only arch (compute_NN
    # without sm_NN): clang's own compile embeds a cubin for every GPU arch, the
    # rules' none for it (its PTX and the other archs' cubins are compared below).
    if all(a.reals for a in layout.archs):
        start = time.monotonic()
        _run(clang, common + ["-c", src, "-o", os.path.join(ref, stem + ".o")], execroot)
        print("%s: clang's one-shot compile took %.2f s" % (layout.src_short_path, time.monotonic() - start))
        if not layout.rdc:
            pairs.append(("object", _runfile(root, layout.files["obj"]), os.path.join(ref, stem + ".o")))

    # Each arch's PTX and cubin: clang's device-only compiles (named <stem>-cuda-nvptx64-nvidia-cuda-sm_NN.*).
    for kind, flag in (("ptx", "-S"), ("cubin", "-c")):
        out = os.path.join(ref, kind)
        os.makedirs(out)
        # Without -o (one file per arch), in the execroot: clang names them after the source.
        _run(clang, common + ["--cuda-device-only", flag, src], execroot)
        for a in layout.archs:
            gpu = "sm_" + a.virtual[len("compute_") :]
            name = "%s-cuda-nvptx64-nvidia-cuda-%s.%s" % (stem, gpu, "s" if kind == "ptx" else "o")
            produced = os.path.join(out, name)
            os.rename(os.path.join(execroot, name), produced)
            if kind == "ptx":
                pairs.append(("ptx " + gpu, _runfile(root, layout.files["ptx/" + a.virtual]), produced))
            elif a.reals:
                pairs.append(("cubin " + gpu, _runfile(root, layout.files["cubin/%s/%s" % (a.virtual, gpu)]), produced))

    results = []
    if layout.rdc and all(a.reals for a in layout.archs):
        results += compare_relocatable(root, layout, _runfile(root, layout.files["obj"]), os.path.join(ref, stem + ".o"))
    for what, staged, reference in pairs:
        with open(staged, "rb") as f:
            ours = f.read()
        with open(reference, "rb") as f:
            theirs = f.read()
        results.append((what, ours == theirs, len(ours), len(theirs)))
    return layout, results


def main(argv):
    del argv
    root = _runfiles_root()
    pattern = "_cuda/%s/" % FLAGS.target
    layouts = []
    for dirpath, _, files in os.walk(os.path.join(root, "_main", FLAGS.package), followlinks=True):
        if "layout.json" in files and pattern in dirpath + "/" and dirpath.endswith("/plan"):
            layouts.append(os.path.join(dirpath, "layout.json"))
    if not layouts:
        print("no staged layout of %s in the runfiles" % FLAGS.target, file=sys.stderr)
        return 1
    differ = 0
    for path in sorted(layouts):
        layout, results = compare(root, path)
        for what, same, n_ours, n_theirs in results:
            print("%s %s: %s (staged %d bytes, clang %d bytes)" % (
                layout.src_short_path, what, "identical" if same else "DIFFERENT", n_ours, n_theirs))
            differ += not same
    if FLAGS.expect == "equal" and differ:
        print("FAIL: %d staged outputs differ from clang's one-shot compile" % differ, file=sys.stderr)
        return 1
    if FLAGS.expect == "differ" and not differ:
        print("FAIL: with %s the reference should differ, and nothing did" % FLAGS.reference_extra, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    flags.mark_flag_as_required("target")
    flags.mark_flag_as_required("package")
    app.run(main)
