"""The differential fidelity fuzzer: random nvcc option sets compiled by nvcc in one call and in stages; bytes compared.

Each case (fuzz_cases.draw: a seed, an index and a CUDA version) is compiled
twice in its own directory:
  - by nvcc in one call: `nvcc <case> -c SRC -o ref/STEM.o --keep --keep-dir ref`;
  - by the staged runner (tools/nvcc_plan/runner.py): the scripts the Bazel
    actions run, one stage after another, `<case> -c SRC -o STEM.o`.
Then, modulo the module id (the rules' deterministic one against nvcc's; both
have the same length):
  - every PTX (LTO IR) and every cubin equals nvcc's; with line info, the
    cubin equals nvcc's own ptxas command rerun where no source exists
    (nvcc_compare.ptxas_without_sources: ptxas records the sources' mtimes);
  - the fatbinary: both objects embed the same images (kinds and archs), and
    the staged fatbinary command, given the staged PTX and cubins spelled
    with nvcc's id, writes nvcc's fatbinary byte for byte;
  - the host object: every section, symbol and relocation
    (nvcc_compare.object_differences);
  - a case nvcc refuses must fail staged too, with nvcc's own error lines.

A failing case prints the one command that replays it. The report (--report)
counts cases, outcomes, options covered and the differences found.

  fidelity_fuzz --cases=2000 --jobs=16 --seed=1 --report=fuzz.json
  fidelity_fuzz --seed=1 --case=417          # replay one case, keeping its directory

Outside Bazel: PYTHONPATH=<repository root> python3 tests/fidelity/fuzz/fidelity_fuzz.py
--nvcc=/usr/local/cuda/bin/nvcc --ccbin=gcc ...
"""

import collections
import concurrent.futures
import glob
import io
import json
import multiprocessing
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

from absl import app
from absl import flags

from tests.fidelity import nvcc_compare
from tests.fidelity.fuzz import fuzz_cases
from tools.fatbin import fatbin_lib
from tools.nvcc_plan import clang_dryrun
from tools.nvcc_plan import clang_scripts
from tools.nvcc_plan import compile_scripts
from tools.nvcc_plan import dryrun
from tools.nvcc_plan import runner
from tools.nvcc_plan import stages

FLAGS = flags.FLAGS
flags.DEFINE_integer("seed", 1, "the run's seed: case K of seed S is the same case everywhere")
flags.DEFINE_integer("cases", 20, "how many cases, from --first")
flags.DEFINE_integer("first", 0, "the first case's index")
flags.DEFINE_integer("case", None, "replay this one case (keeps its directory and prints it)")
flags.DEFINE_list("indices", [], "run these cases (instead of --first and --cases): the cases a test keeps")
flags.DEFINE_integer("jobs", 1, "cases compiled at once (each compile runs one process at a time)")
flags.DEFINE_string("toolkit", None, "the CUDA version to fuzz (12.4, 13.0, 13.5); default: the first of --toolkit_dirs")
flags.DEFINE_list("toolkit_dirs", [], "VERSION=DIR,...: the toolkits (DIR/bin/nvcc); under Bazel, from the runfiles")
flags.DEFINE_string("nvcc", None, "nvcc to fuzz (outside Bazel), with --toolkit naming its version")
flags.DEFINE_enum("compiler", "nvcc", ["nvcc", "clang"], "the CUDA compiler fuzzed: nvcc, or clang in stages against "
                  "clang's own one-shot compile (--@rules_cuda_stages//cuda_rules:compiler=clang)")
flags.DEFINE_string("clang", None, "clang driver for --compiler=clang (outside Bazel); default: the rules' own, from the runfiles")
flags.DEFINE_list("clang_toolchain_flags", None, "with --clang: the C++ toolchain's flags the rules put before the "
                  "target's options (default: none; under Bazel, those the rules gave the probe target)")
flags.DEFINE_string("ccbin", None, "the host compiler both compiles get (-ccbin); default: the rules' own, from the runfiles")
flags.DEFINE_string("report", None, "write the JSON report here")
flags.DEFINE_string("work_dir", None, "compile the cases under this directory (default: a temporary one)")
flags.DEFINE_bool("keep", False, "keep every case's directory (failing cases' are always kept)")
flags.DEFINE_string("link_dir", None, "link each generated case that both sides compiled into two checksum programs here")
flags.DEFINE_integer("expect_cases", 0, "fail unless at least this many cases were compared (a test's floor)")
flags.DEFINE_integer("expect_both_failed", 0, "fail unless at least this many cases failed on both sides")

SAME, BOTH_FAILED, DIFFERENT, STAGED_FAILED, STAGED_PASSED = (
    "same", "both failed", "DIFFERENT", "STAGED FAILED (nvcc passed)", "STAGED PASSED (nvcc failed)")
# Every difference of the case is in device code of archs whose cicc command, run by itself four
# more times with one module id, wrote more than one output: nvcc's own output is not reproducible there
# (docs/cuda_library.md, "The fidelity fuzzer"), and the staged build can be no more equal to it.
NOT_REPRODUCIBLE = "nvcc not reproducible"
_REPRODUCIBILITY_RUNS = 4


def _repo_root_of(path):
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(path))))


def _repo_root():
    return _repo_root_of(os.path.abspath(__file__))


def _pool_file(source):
    """Where a pool source is: in this repository, or under Bazel in the runfiles of the nested module it is in."""
    path = os.path.join(_repo_root(), source)
    if os.path.exists(path):
        return path
    for prefix, module in fuzz_cases.POOL_MODULES.items():
        if source.startswith(prefix):
            for repo in glob.glob(os.path.join(os.path.dirname(_repo_root()), module + "*")):
                if os.path.exists(os.path.join(repo, source[len(prefix):])):
                    return os.path.join(repo, source[len(prefix):])
    raise FileNotFoundError("pool source %s: not at %s, nor in the runfiles of its module" % (source, path))


def _write_source(case, d):
    """Writes the case's source into d (a pool file with the headers beside it); returns its name."""
    path = os.path.join(d, case.file_name)
    if case.source == "generated":
        with open(path, "w") as f:
            f.write(fuzz_cases.generated_source(case))
    else:
        src = _pool_file(case.source)
        shutil.copy(src, path)
        for header in glob.glob(os.path.join(os.path.dirname(src), "*.h")) + glob.glob(os.path.join(os.path.dirname(src), "*.cuh")):
            shutil.copy(header, os.path.join(d, os.path.basename(header)))
    return case.file_name


_ERROR_LINE = re.compile(r"\berror\b|\bfatal\b", re.I)
_COLOR = re.compile(r"\x1b\[[0-9;]*m")  # clang's -fcolor-diagnostics (the C++ toolchain's flag)
_DRIVER_SAYS_FAILED = re.compile(r"error: \S+ command failed with exit code \d+")


def _error_lines(text):
    """nvcc's (or clang's) error lines, without its temporary files' names (tmpxft_...) and colours."""
    text = _COLOR.sub("", text)
    return [l.strip() for l in text.splitlines() if _ERROR_LINE.search(l) and "tmpxft" not in l and l.strip()]


_IMAGE = re.compile(r"^(--image3=(.*),file=)(.*)$")


def _run_fatbinary(words, d, scratch, name, images):
    """Runs a fatbinary command with its images replaced by `images` ({"kind=elf,sm=80": path}); returns its output."""
    out = os.path.join(scratch, name + ".fatbin")
    cmd = [os.path.join(os.path.dirname(_NVCC[0]), "fatbinary")]  # nvcc's dryrun names it without a directory
    for w in words[1:]:
        m = _IMAGE.match(w)
        if m:
            w = m.group(1) + images[m.group(2)]
        elif w.startswith("--create="):
            w = "--create=" + out
        elif w.startswith("--embedded-fatbin="):
            w = "--embedded-fatbin=" + os.path.join(scratch, name + ".fatbin.c")
        cmd.append(w)
    proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError("fatbinary failed: %s\n%s" % (" ".join(cmd), proc.stderr))
    return nvcc_compare.read(out)


def _fatbinary_check(d, keep, fatbinary_argv, ours_id, theirs_id):
    """The staged fatbinary command against nvcc's: both run on the staged images spelled with nvcc's module id.

    Returns (the staged command's output, nvcc's command's output). The images
    themselves are compared on their own (with line info, nvcc's cubins hold
    the sources' mtimes, and so does its fatbinary).
    """
    with open(os.path.join(keep, "plan", "embed_fatbin.sh")) as f:
        lines = [l for l in f if "fatbinary" in l and not l.startswith("#")]
    words = next(w for w in (shlex.split(l.split(" || ")[0]) for l in lines) if w and w[0].endswith("/fatbinary"))
    scratch = tempfile.mkdtemp(prefix="fatbinary.", dir=d)
    images = {}
    for w in words:
        m = _IMAGE.match(w)
        if m:
            copy = os.path.join(scratch, "%d.%s" % (len(images), os.path.basename(m.group(3))))
            with open(copy, "wb") as f:
                f.write(nvcc_compare.swap(nvcc_compare.read(os.path.join(d, m.group(3))), ours_id, theirs_id))
            images[m.group(2)] = copy
    return _run_fatbinary(words, d, scratch, "staged", images), _run_fatbinary(fatbinary_argv, d, scratch, "nvcc", images)


def _cicc_with_module_id(argv, d, module_id, tmp):
    """Runs nvcc's cicc command with `module_id` as the module id, its outputs in a scratch directory; returns its -o."""
    scratch = tempfile.mkdtemp(prefix="cicc.", dir=tmp)
    cmd = list(argv)
    with open(os.path.join(scratch, "module_id"), "w") as f:
        f.write(module_id)
    for option, name in (("--module_id_file_name", "module_id"), ("--gen_c_file_name", "c"), ("--stub_file_name", "stub.c"),
                         ("--gen_device_file_name", "gpu"), ("-o", "out")):
        if option in cmd:
            cmd[cmd.index(option) + 1] = os.path.join(scratch, name)
    toolkit = os.path.dirname(os.path.dirname(_NVCC[0]))
    cmd[0] = os.path.join(toolkit, "nvvm", "bin", "cicc")
    env = dict(os.environ, PWD="/proc/self/cwd", NVVMIR_LIBRARY_DIR=os.path.join(toolkit, "nvvm", "libdevice"))
    proc = subprocess.run(cmd, cwd=d, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError("nvcc's cicc command failed: %s\n%s" % (" ".join(cmd), proc.stderr))
    return nvcc_compare.read(os.path.join(scratch, "out"))


_NVCC = []


def compare_outputs(case, d, nvcc, ref_args, tmp):
    """How the staged outputs in d/keep differ from nvcc's in d/ref: ([difference, ...], files compared, notes).

    Modulo the module id: where both ids have one length, the staged files
    spell nvcc's id; where they do not (with -rdc=true nvcc appends its process
    id to some ids), nvcc's own cicc commands are rerun with the staged id
    (and its ptxas commands on their PTX), and the host object, which holds
    the id in its symbols, is not compared.
    """
    keep, ref = os.path.join(d, "keep"), os.path.join(d, "ref")
    _NVCC[:] = [nvcc]
    stem = case.stem
    ours_id = nvcc_compare.read(os.path.join(keep, stem + ".module_id")).decode().strip()
    theirs_id = nvcc_compare.read(glob.glob(os.path.join(ref, "*.module_id"))[0]).decode().strip()
    swappable = len(ours_id) == len(theirs_id)
    notes = [] if swappable else ["nvcc's module id %s has another length than %s: nvcc's commands rerun with it; "
                                  "host object not compared" % (theirs_id, ours_id)]
    with open(os.path.join(keep, "plan", "layout.json")) as f:
        files = json.load(f)["files"]
    plan = dryrun.plan_from_text(dryrun.run_dryrun(nvcc, ref_args, cwd=d))
    diffs, compared = [], 0
    line_info = nvcc_compare.has_line_info(case.nvcc_args()) or any(
        nvcc_compare.has_line_info(p.argv) for p in plan.by_step(stages.STEP_PTXAS))
    lto_ir = any(v.endswith(".ltoir") for v in files.values())
    ptxas_bin = os.path.join(os.path.dirname(nvcc), "ptxas")
    rerun_ptx = {}  # virtual arch -> nvcc's cicc rerun with the staged id (unswappable ids)
    unreproducible = set()  # virtual archs whose cicc command is not reproducible
    for cicc in plan.by_step(stages.STEP_CICC):
        key = stages.KEYS.ptx + "/" + cicc.arch
        ours = nvcc_compare.read(os.path.join(d, files[key]))
        compared += 1
        unsplit = "-split-compile" in cicc.argv and not stages.splits_for_arch(stages.CICC, cicc.arch)
        same_modulo_swap = False
        if swappable and not files[key].endswith(".ltoir") and not unsplit:
            same_modulo_swap = nvcc_compare.decode_b8(nvcc_compare.swap(ours, ours_id, theirs_id), theirs_id, ours_id) == \
                nvcc_compare.decode_b8(nvcc_compare.read(os.path.join(d, dryrun.value_after(cicc.argv, "-o"))), theirs_id, ours_id)
        if same_modulo_swap:
            theirs = ours
        else:
            # LTO IR is an opaque container (the id cannot be swapped in it), ids of two lengths cannot
            # be swapped at all, and with -G nvvm-latest's (compute_100 on) debug sections hold data
            # derived from the id: nvcc's own cicc command, given the staged module id, must write the
            # staged file byte for byte. So must its command without -split-compile for an arch whose
            # split compilation is not reproducible (stages.CICC.split_compile_below_arch: the staged cicc
            # runs without it).
            argv = compile_scripts.without_split_compile(cicc.argv) if unsplit else cicc.argv
            theirs = _cicc_with_module_id(argv, d, ours_id, tmp)
            path = os.path.join(tempfile.mkdtemp(prefix="rerun.", dir=tmp), "rerun.ptx")
            with open(path, "wb") as f:
                f.write(theirs)
            rerun_ptx[cicc.arch] = path
        if ours != theirs:
            diffs.append("%s %s differs at byte %d" % ("ltoir" if files[key].endswith(".ltoir") else "ptx", cicc.arch,
                                                        nvcc_compare.first_difference(ours, theirs)))
            # Is nvcc's own cicc command reproducible? Four more runs of it, with the staged id.
            argv = compile_scripts.without_split_compile(cicc.argv) if unsplit else cicc.argv
            runs = [_cicc_with_module_id(argv, d, ours_id, tmp) for _ in range(_REPRODUCIBILITY_RUNS)]
            if cicc.arch in rerun_ptx:
                runs.append(theirs)
            if len(set(runs)) > 1:
                unreproducible.add(cicc.arch)
                notes.append("nvcc's cicc command for %s wrote %d different outputs in %d runs with one module id" % (
                    cicc.arch, len(set(runs)), len(runs)))
    for ptxas in plan.by_step(stages.STEP_PTXAS):
        key = "%s/%s/%s" % (stages.KEYS.cubin, ptxas.virtual_arch, ptxas.arch)
        ours = nvcc_compare.read(os.path.join(d, files[key]))
        compared += 1
        names = (os.path.relpath(files[stages.KEYS.ptx + "/" + ptxas.virtual_arch], d), os.path.relpath(files[key], d))
        if swappable and ptxas.virtual_arch not in rerun_ptx:
            theirs = nvcc_compare.read(os.path.join(d, ptxas.outputs[0]))
            if nvcc_compare.swap(ours, ours_id, theirs_id) == theirs:
                ours = theirs
            elif nvcc_compare.has_line_info(ptxas.argv):
                # With line info ptxas records the sources' mtimes, and with -G -rdc it names a
                # section from a hash of the PTX text (which holds the module id): nvcc's ptxas
                # command on the staged PTX (equal to nvcc's modulo the id, compared above), where
                # no source exists, must write the staged cubin.
                theirs = nvcc_compare.ptxas_without_sources(
                    ptxas_bin, ptxas.argv, os.path.join(d, files[stages.KEYS.ptx + "/" + ptxas.virtual_arch]), *names, tmp=tmp)
        else:  # nvcc's ptxas command on the PTX of nvcc's rerun cicc command
            theirs = nvcc_compare.ptxas_without_sources(ptxas_bin, ptxas.argv, rerun_ptx[ptxas.virtual_arch], *names, tmp=tmp)
        if ours != theirs:
            diffs.append("cubin %s/%s differs at byte %d" % (ptxas.virtual_arch, ptxas.arch,
                                                             nvcc_compare.first_difference(ours, theirs)))
    ours_obj, ref_obj = os.path.join(d, stem + ".o"), os.path.join(ref, stem + ".o")
    images = sorted(i.name + ":" + i.kind for i in fatbin_lib.read_images(nvcc_compare.read(ours_obj)))
    ref_images = sorted(i.name + ":" + i.kind for i in fatbin_lib.read_images(nvcc_compare.read(ref_obj)))
    if images != ref_images:
        diffs.append("fatbinary images %s, nvcc's %s" % (images, ref_images))
    ref_fatbin = glob.glob(os.path.join(ref, "*.fatbin"))
    fatbinary = plan.by_step(stages.STEP_FATBINARY)
    if len(ref_fatbin) == 1 and len(fatbinary) == 1:
        compared += 1
        spelled = (ours_id, theirs_id) if swappable else (ours_id, ours_id)
        staged_cmd, nvcc_cmd = _fatbinary_check(d, keep, fatbinary[0].argv, *spelled)
        if staged_cmd != nvcc_cmd:
            diffs.append("fatbinary: the staged command and nvcc's write different fatbinaries from the same images")
        elif swappable and not line_info and not lto_ir and not rerun_ptx and staged_cmd != nvcc_compare.read(ref_fatbin[0]):
            # (with line info nvcc's cubins hold the sources' mtimes and fatbinary records its images' file
            # names; LTO IR holds the module id unswappably)
            diffs.append("fatbinary: nvcc's own differs from its command's output on the staged images")
    else:
        diffs.append("nvcc kept %d fatbinaries, ran %d fatbinary commands" % (len(ref_fatbin), len(fatbinary)))
    if swappable:
        host_input = os.path.basename(plan.by_step(stages.STEP_HOST_CC)[0].inputs[0])
        compared += 1
        diffs += ["object: " + x for x in nvcc_compare.object_differences(
            ours_obj, ref_obj, ours_id.encode(), theirs_id.encode(), {stem + ".cudafe1.cpp": host_input})]
    return diffs, compared, notes, unreproducible


def _device_code_of(difference, archs):
    """Whether a difference is in the PTX, LTO IR or cubins of one of the virtual archs `archs`."""
    words = difference.split()
    return len(words) > 1 and words[0] in ("ptx", "ltoir", "cubin") and words[1].split("/")[0] in archs


def run_case(case, nvcc, ccbin, work_dir, keep_all=False, link_dir=None):
    """Compiles one case both ways and compares: a result dict."""
    started = time.time()
    d = tempfile.mkdtemp(prefix="case%d." % case.index, dir=work_dir)
    src = _write_source(case, d)
    os.makedirs(os.path.join(d, "ref"))
    common = ["-ccbin", ccbin] + case.nvcc_args()
    ref_args = common + ["-c", src, "-o", "ref/%s.o" % case.stem, "--keep", "--keep-dir", "ref"]
    env = dict(os.environ, PWD="/proc/self/cwd")  # the staged scripts' convention for debug info
    nvcc_proc = subprocess.run([nvcc] + ref_args, cwd=d, env=env, capture_output=True, text=True)
    out, err = io.StringIO(), io.StringIO()
    try:
        rc = runner.run(common + ["-c", src, "-o", case.stem + ".o"],
                        runner.RunOptions(nvcc=nvcc, cwd=d, keep_dir="keep", jobs=1, stdout=out, stderr=err))
    except Exception as e:  # pylint: disable=broad-except
        rc, err = -1, io.StringIO("runner raised %r" % e)
    details, compared, notes = [], 0, []
    if nvcc_proc.returncode != 0:
        missing = [l for l in _error_lines(nvcc_proc.stderr) if l not in err.getvalue()]
        if rc == 0:
            outcome = STAGED_PASSED
            details = ["nvcc: " + l for l in _error_lines(nvcc_proc.stderr)[:3]]
        elif missing:
            outcome = DIFFERENT
            details = ["nvcc's error not in the staged one's: " + l for l in missing[:3]]
        else:
            outcome = BOTH_FAILED
            details = _error_lines(nvcc_proc.stderr)[:1]
    elif rc != 0:
        outcome = STAGED_FAILED
        details = [l for l in err.getvalue().splitlines() if l.strip()][-4:]
    else:
        try:
            details, compared, notes, unreproducible = compare_outputs(case, d, nvcc, ref_args, d)
        except Exception as e:  # pylint: disable=broad-except
            details = ["comparison raised %r at %s" % (e, traceback.extract_tb(e.__traceback__)[-1][:3])]
            unreproducible = set()
        outcome = DIFFERENT if details else SAME
        if details and unreproducible and all(_device_code_of(x, unreproducible) for x in details):
            outcome = NOT_REPRODUCIBLE
        if outcome == SAME and link_dir and case.source == "generated" and _runs_on(
                os.path.join(d, case.stem + ".o"), LINK_ARCH):
            _link_pair(case, d, nvcc, ccbin, link_dir)
    return _result(case, outcome, details, compared, notes, started, d, keep_all)


# The GPU the linked checksum programs run on (an H100/H200: sm_90).
LINK_ARCH = 90


def _runs_on(obj, arch):
    """Whether the object holds code a GPU of `arch` runs: its cubin, or PTX or LTO IR of an arch not above it."""
    for image in fatbin_lib.read_images(nvcc_compare.read(obj)):
        if (image.kind == "elf" and image.arch == arch) or (image.kind != "elf" and image.arch <= arch):
            return True
    return False


def _link_pair(case, d, nvcc, ccbin, link_dir):
    """Links nvcc's and the staged object of a generated case, each with a main printing fuzz_checksum()."""
    main = os.path.join(d, "checksum_main.cu")
    with open(main, "w") as f:
        f.write(fuzz_cases.CHECKSUM_MAIN)
    link = ["-ccbin", ccbin] + case.archs + (["-rdc=true"] if case.rdc else []) + (["-dlto"] if case.lto else [])
    if case.lto:  # the device link compiles the LTO IR for a real arch
        link = ["-ccbin", ccbin, "-rdc=true", "-dlto", "-arch=sm_%d" % LINK_ARCH]
    for side, obj in (("nvcc", "ref/%s.o" % case.stem), ("staged", case.stem + ".o")):
        out = os.path.join(link_dir, "case%d.%s" % (case.index, side))
        proc = subprocess.run([nvcc] + link + [obj, main, "-o", out], cwd=d, capture_output=True, text=True)
        if proc.returncode != 0:
            with open(out + ".link_error", "w") as f:
                f.write(proc.stderr)


# clang as the CUDA compiler ---------------------------------------------------


def clang_archs(case):
    """The case's archs setting as the target declares it: [stages.Arch], by GPU arch."""
    gpus = sorted({a.split("_", 1)[1] for a in case.archs}, key=lambda g: (int(g.rstrip("a")), g))
    return [stages.Arch("compute_" + g, ("sm_" + g,) if "sm_" + g in case.archs else (), ptx="compute_" + g in case.archs)
            for g in gpus]


def clang_args(case, toolkit, toolchain_flags):
    """The driver's arguments for the case's target, as cuda_rules/private/compile/clang.bzl (clang_common_args)
    gives them: the toolkit, the archs, rdc, the canonical compilation directory, the C++ toolchain's flags, the copts."""
    archs = clang_archs(case)
    args = ["-x", "cuda", "--cuda-path=" + toolkit]
    args += ["--cuda-gpu-arch=sm_" + a.virtual[len("compute_"):] for a in archs]
    args += ["--no-cuda-include-ptx=all"] + ["--cuda-include-ptx=sm_" + a.virtual[len("compute_"):] for a in archs if a.ptx]
    if case.rdc:
        args += ["-fgpu-rdc", "--no-offload-new-driver"]
    args += ["-ffile-compilation-dir=/proc/self/cwd", "-Wno-unknown-cuda-version"] + list(toolchain_flags) + ["-fPIC"]
    return args + list(case.options) + ["-isystem", os.path.join(toolkit, "include")]  # the toolkit's headers, as a cc dep's


def _clang(clang, args, cwd):
    return subprocess.run([clang] + args, cwd=cwd, env=dict(os.environ, PWD="/proc/self/cwd"), capture_output=True, text=True)


def _clang_ptxas_rerun(clang, call, gpu, ptx, cwd, tmp):
    """clang's own ptxas command for `gpu` (from `clang -### --cuda-device-only -c`), run on `ptx` in an empty
    directory: with line info ptxas records the modification times of the files the PTX names, which the staged
    ptxas (clang_scripts: in an empty directory) never sees, and clang's one-shot ptxas does."""
    text = clang_dryrun.run(clang, call + ["--cuda-device-only", "-c", "-Wno-unused-command-line-argument"], cwd=cwd)
    _, plan = clang_dryrun.parse(text)
    argv = next(c.argv for c in plan.by_step(stages.STEP_PTXAS) if c.arch == gpu)
    scratch = tempfile.mkdtemp(prefix="ptxas.", dir=tmp)
    empty = tempfile.mkdtemp(prefix="empty.", dir=tmp)
    out = os.path.join(scratch, "out.cubin")
    cmd = [argv[0]]
    for i, a in enumerate(argv[1:], 1):
        if argv[i - 1] in ("-o", "--output-file"):
            a = out
        elif a.endswith(".s") and clang_dryrun.PLAN_TMPDIR in a:
            a = ptx
        cmd.append(a)
    proc = subprocess.run(cmd, cwd=empty, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError("clang's ptxas command failed: %s\n%s" % (" ".join(cmd), proc.stderr))
    return nvcc_compare.read(out)


def compare_clang(case, d, clang, call, layout, tmp):
    """How the staged outputs differ from clang's own compiles of the same driver call: ([difference], files compared, notes).

    clang's one-shot object (`-c`, already in ref/), and where it is not equal byte for byte (or cannot
    be: relocatable code, a PTX-only arch) its device-only compiles (`--cuda-device-only -S`, `-c`) for
    each GPU arch's PTX and cubin, as //tests/clang's fidelity tests compare them; with line info a cubin
    that differs is compared with clang's ptxas command rerun where no source exists.
    """
    ref = os.path.join(d, "ref")
    obj = os.path.join(ref, layout.stem + ".o")
    staged_obj = nvcc_compare.read(os.path.join(d, layout.files[stages.KEYS.obj]))
    if not case.rdc and all(a.reals for a in layout.archs) and staged_obj == nvcc_compare.read(obj):
        # The object embeds the fatbinary: every cubin and embedded PTX is in it.
        images = len(fatbin_lib.read_images(staged_obj))
        return [], 1 + images, ["the object equals clang's one-shot object, its %d fatbinary images included" % images]
    common = list(call)
    i = common.index("-o")
    del common[i:i + 2]
    i = common.index("-c")
    src = common[i + 1]
    del common[i:i + 2]
    diffs, compared, notes = [], 0, []
    cubins = {}
    for kind, flag in (("ptx", "-S"), ("cubin", "-c")):
        # (-Werror among the options would fail it on the host-only options left unused.)
        proc = _clang(clang, common + ["--cuda-device-only", flag, "-Wno-unused-command-line-argument", src], d)
        if proc.returncode != 0:
            return ["clang's device-only compile (%s) failed: %s" % (flag, (_error_lines(proc.stderr) or [proc.stderr])[0])], compared, notes
        for a in layout.archs:
            gpu = "sm_" + a.virtual[len("compute_"):]
            produced = os.path.join(d, "%s-cuda-nvptx64-nvidia-cuda-%s.%s" % (layout.stem, gpu, "s" if kind == "ptx" else "o"))
            theirs = nvcc_compare.read(produced)
            os.rename(produced, os.path.join(ref, os.path.basename(produced)))
            if kind == "ptx":
                key = stages.KEYS.ptx + "/" + a.virtual
            elif a.reals:
                key = "%s/%s/%s" % (stages.KEYS.cubin, a.virtual, gpu)
            else:
                continue
            ours = nvcc_compare.read(os.path.join(d, layout.files[key]))
            compared += 1
            if kind == "cubin" and ours != theirs:
                rerun = _clang_ptxas_rerun(clang, common + [src], gpu, os.path.join(d, layout.files[stages.KEYS.ptx + "/" + a.virtual]), d, tmp)
                if rerun == ours:
                    notes.append("cubin %s: equal to clang's ptxas command where no source exists (line info)" % gpu)
                    cubins[gpu] = theirs
                    theirs = ours
            if ours != theirs:
                diffs.append("%s %s differs at byte %d" % (kind, gpu, nvcc_compare.first_difference(ours, theirs)))
    if not all(a.reals for a in layout.archs):
        notes.append("a PTX-only arch: clang's one-shot object embeds a cubin for every GPU arch, so no object equals it")
        return diffs, compared, notes
    compared += 1
    ours = nvcc_compare.content_sections(staged_obj)
    theirs = nvcc_compare.content_sections(nvcc_compare.read(obj))
    fatbin = clang_scripts.RELOCATABLE_FATBIN_SECTION if case.rdc else clang_scripts.FATBIN_SECTION
    if cubins:
        # clang's one-shot fatbinary holds its cubins with the sources' mtimes; the staged fatbinary
        # must hold the same images (compared above against the rerun ptxas), the rest of the object equal.
        ours.pop(fatbin, None)
        theirs.pop(fatbin, None)
        images = sorted((i.kind, i.arch) for i in fatbin_lib.read_images(staged_obj))
        ref_images = sorted((i.kind, i.arch) for i in fatbin_lib.read_images(nvcc_compare.read(obj)))
        if images != ref_images:
            diffs.append("fatbinary images %s, clang's %s" % (images, ref_images))
    if not case.rdc and not cubins:  # (equal objects returned above)
        diffs.append("object differs from clang's at byte %d" % nvcc_compare.first_difference(staged_obj, nvcc_compare.read(obj)))
    for name, data in sorted(theirs.items()):
        if ours.get(name, b"") != data:
            diffs.append("object section %s differs" % name)
    extra = sorted(set(ours) - set(theirs))
    if extra:
        diffs.append("object sections beyond clang's: %s" % ", ".join(extra))
    if case.rdc:
        with open(os.path.join(d, layout.scripts[stages.DEVICE_OBJECT_SCRIPT])) as f:
            found = re.search(r"-D__NV_MODULE_ID=(\w+)", f.read())
        clang_id = theirs.get("__nv_module_id", b"").rstrip(b"\0").decode()
        if not found or found.group(1) != clang_id:
            diffs.append("device_object.sh's module id %s, clang's object's %s" % (found and found.group(1), clang_id))
    return diffs, compared, notes


def _embed_tool(work_dir):
    """CudaClangEmbed's tool (the rule's //tools/nvcc_plan:elf_splice), as a command."""
    path = os.path.join(work_dir, "elf_splice")
    if not os.path.exists(path):
        tmp = "%s.%d" % (path, os.getpid())  # cases run in several processes at once
        with open(tmp, "w") as f:
            f.write("#!/bin/sh\nexec %s %s \"$@\"\n" % (
                shlex.quote(sys.executable), shlex.quote(os.path.join(_repo_root(), "tools", "nvcc_plan", "elf_splice.py"))))
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    return path


def run_clang_case(case, clang, toolkit, toolchain_flags, work_dir, keep_all=False):
    """Compiles one clang case in stages (the rules' scripts, tools/nvcc_plan/runner.prepare_clang) and with
    clang's own compiles, and compares: a result dict."""
    started = time.time()
    d = tempfile.mkdtemp(prefix="clang%d." % case.index, dir=work_dir)
    src = _write_source(case, d)
    os.makedirs(os.path.join(d, "ref"))
    args = clang_args(case, toolkit, toolchain_flags)
    err, call, layout = "", None, None
    try:
        tasks, layout, call = runner.prepare_clang(clang, args, src=src, cwd=d, work_dir="keep", archs=clang_archs(case),
                                                   rdc=case.rdc, embed_tool=_embed_tool(work_dir))
        tasks["plan"].returncode = 0
        out, errs = io.StringIO(), io.StringIO()
        runner.execute(tasks, jobs=1, cwd=d, t0=time.monotonic(), stdout=out, stderr=errs)
        rc = 0
    except runner.RunError as e:
        rc, err = 1, str(e)
    except runner.StageFailed as e:
        rc, err = 1, e.stderr_text.decode(errors="replace") if isinstance(e.stderr_text, bytes) else str(e.stderr_text)
    except Exception as e:  # pylint: disable=broad-except
        rc, err = -1, "the staged compile raised %r at %s" % (e, traceback.extract_tb(e.__traceback__)[-1][:3])
    # clang's one-shot compile of the same driver call (the rules' -cuid included).
    ref_call = call or (args + ["-c", src, "-o", "keep/%s.o" % case.stem])
    i = ref_call.index("-o")
    one_shot = ref_call[:i] + ["-o", "ref/%s.o" % case.stem] + ref_call[i + 2:]
    ref = _clang(clang, one_shot, d)
    details, compared, notes = [], 0, []
    if ref.returncode != 0:
        # (clang's driver adds "<tool> command failed with exit code N" for a tool that failed: the staged
        # build runs the tool itself, and its own error lines must be there.)
        missing = [l for l in _error_lines(ref.stderr) if l not in _COLOR.sub("", err) and not _DRIVER_SAYS_FAILED.search(l)]
        if rc == 0:
            outcome, details = STAGED_PASSED, ["clang: " + l for l in _error_lines(ref.stderr)[:3]]
        elif missing:
            outcome, details = DIFFERENT, ["clang's error not in the staged one's: " + l for l in missing[:3]]
        else:
            outcome, details = BOTH_FAILED, _error_lines(ref.stderr)[:1]
    elif rc != 0:
        outcome, details = STAGED_FAILED, [l for l in err.splitlines() if l.strip()][-4:]
    else:
        try:
            details, compared, notes = compare_clang(case, d, clang, call, layout, d)
        except Exception as e:  # pylint: disable=broad-except
            details = ["comparison raised %r at %s" % (e, traceback.extract_tb(e.__traceback__)[-1][:3])]
        outcome = DIFFERENT if details else SAME
    return _result(case, outcome, details, compared, notes, started, d, keep_all)


def _result(case, outcome, details, compared, notes, started, d, keep_all):
    """A case's result dict (the report's entry); the case's directory removed unless it failed or all are kept."""
    result = {
        "index": case.index, "seed": case.seed, "toolkit": case.version, "compiler": case.compiler, "source": case.source,
        "features": list(case.features), "args": case.args(), "option_names": list(case.option_names),
        "arch_form": case.arch_form, "rdc": case.rdc, "outcome": outcome, "details": details,
        "compared_files": compared, "notes": notes, "seconds": round(time.time() - started, 2), "dir": d,
    }
    if outcome in (SAME, BOTH_FAILED) and not keep_all:
        shutil.rmtree(d, ignore_errors=True)
        result["dir"] = None
    return result


def replay_command(case):
    return "bazel run //tests/fidelity/fuzz:fidelity_fuzz -- %s--toolkit=%s --seed=%d --case=%d" % (
        "--compiler=clang " if case.compiler == "clang" else "", case.version, case.seed, case.index)


def _toolkits():
    """{version: toolkit directory}, from --toolkit_dirs or --nvcc."""
    dirs = {}
    for entry in FLAGS.toolkit_dirs:
        version, _, path = entry.partition("=")
        dirs[version] = path
    if FLAGS.nvcc:
        dirs = {FLAGS.toolkit or "13.0": os.path.dirname(os.path.dirname(os.path.abspath(FLAGS.nvcc)))}
    return dirs


def _runfiles_toolkits():
    """Under Bazel, from the fuzzer's data (tests/fidelity/fuzz/BUILD.bazel): ({version: toolkit dir}, the rules'
    -ccbin, (the rules' clang, the C++ toolchain's flags the rules give it) or None)."""
    # The runfiles tree itself (the probes' outputs are found by globbing it): a py_binary run by
    # `bazel run` gets a manifest, whose Rlocation answers with source paths.
    root = os.environ.get("RUNFILES_DIR")
    manifest = os.environ.get("RUNFILES_MANIFEST_FILE", "")
    if not root and manifest.endswith(".runfiles_manifest"):
        root = manifest[: -len("_manifest")]
    if not root or not os.path.isdir(root):
        root = os.path.dirname(_repo_root())  # <runfiles>/_main/tests/fidelity/fuzz/fidelity_fuzz.py
    dirs = {}
    for nvcc in glob.glob(os.path.join(root, "*", "bin", "nvcc")):
        m = re.search(r"cuda_([0-9]+)_([0-9]+)_[a-z0-9_]+$", os.path.basename(os.path.dirname(os.path.dirname(nvcc))))
        if m:
            dirs["%s.%s" % m.groups()] = os.path.dirname(os.path.dirname(nvcc))
    ccbin, clang = None, None
    for args in glob.glob(os.path.join(root, "_main", "tests", "fidelity", "fuzz", "_cuda", "**", "*_args.json"), recursive=True):
        with open(args) as f:
            words = json.load(f)
        if isinstance(words, dict):  # a clang target's plan: {"clang": driver, "args": its call}
            call = words["args"]
            flags_ = call[call.index("-Wno-unknown-cuda-version") + 1:call.index("-fPIC")]
            clang = (words["clang"], flags_)
        elif "-ccbin" in words:
            ccbin = words[words.index("-ccbin") + 1]
    return dirs, ccbin, clang


def main(argv):
    del argv
    toolkits, ccbin, clang = _toolkits(), FLAGS.ccbin, None
    if not toolkits:
        toolkits, rules_ccbin, clang = _runfiles_toolkits()
        ccbin = ccbin or rules_ccbin
    if FLAGS.compiler == "clang":
        clang = (FLAGS.clang or (clang and clang[0]),
                 FLAGS.clang_toolchain_flags if FLAGS.clang_toolchain_flags is not None else (clang[1] if clang else []))
        if not clang[0]:
            print("fidelity_fuzz: --compiler=clang needs --clang=PATH (under Bazel: tools/bazelw's clang addon)", file=sys.stderr)
            return 2
    default = sorted(v for v in toolkits if FLAGS.compiler == "nvcc" or v in fuzz_cases.CLANG_ARCHS)
    version = FLAGS.toolkit or (default or sorted(toolkits))[0]
    if version not in toolkits:
        print("fidelity_fuzz: no CUDA %s toolkit (have %s)" % (version, ", ".join(sorted(toolkits))), file=sys.stderr)
        return 2
    nvcc = os.path.join(toolkits[version], "bin", "nvcc")
    ccbin = ccbin or "gcc"
    work_dir = FLAGS.work_dir or tempfile.mkdtemp(prefix="fidelity_fuzz.", dir=os.environ.get("TEST_TMPDIR"))
    os.makedirs(work_dir, exist_ok=True)
    if FLAGS.link_dir:
        os.makedirs(FLAGS.link_dir, exist_ok=True)
    indices = [FLAGS.case] if FLAGS.case is not None else (
        [int(i) for i in FLAGS.indices] or list(range(FLAGS.first, FLAGS.first + FLAGS.cases)))
    if FLAGS.compiler == "clang" and version not in fuzz_cases.CLANG_ARCHS:
        print("fidelity_fuzz: clang mode fuzzes CUDA %s, not %s" % (", ".join(fuzz_cases.CLANG_ARCHS), version), file=sys.stderr)
        return 2
    draw = fuzz_cases.draw_clang if FLAGS.compiler == "clang" else fuzz_cases.draw
    cases = [draw(FLAGS.seed, i, version) for i in indices]
    started = time.time()
    results = []
    if FLAGS.compiler == "clang":
        print("fidelity_fuzz: %d clang cases, seed %d, CUDA %s (%s), clang %s, toolchain flags %s, %d at a time" % (
            len(cases), FLAGS.seed, version, toolkits[version], clang[0], " ".join(clang[1]), FLAGS.jobs), flush=True)
    else:
        print("fidelity_fuzz: %d cases, seed %d, CUDA %s (%s), -ccbin %s, %d at a time" % (
            len(cases), FLAGS.seed, version, nvcc, ccbin, FLAGS.jobs), flush=True)
    keep_all = FLAGS.keep or FLAGS.case is not None
    # Processes, not threads: the runner waits for any child (wait4(-1)), so one compile per process.
    with concurrent.futures.ProcessPoolExecutor(max_workers=FLAGS.jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        if FLAGS.compiler == "clang":
            futures = {pool.submit(run_clang_case, c, clang[0], toolkits[version], clang[1], work_dir, keep_all): c for c in cases}
        else:
            futures = {pool.submit(run_case, c, nvcc, ccbin, work_dir, keep_all, FLAGS.link_dir): c for c in cases}
        for future in concurrent.futures.as_completed(futures):
            case, result = futures[future], future.result()
            results.append(result)
            if result["outcome"] not in (SAME, BOTH_FAILED) or FLAGS.case is not None:
                print("case %d: %s: %s" % (case.index, result["outcome"], " ".join(shlex.quote(a) for a in result["args"])))
                print("  source: %s%s" % (case.source, " (%s)" % ",".join(case.features) if case.features else ""))
                for line in result["details"]:
                    print("  " + line)
                print("  directory: %s" % result["dir"])
                print("  replay: " + replay_command(case), flush=True)
    results.sort(key=lambda r: r["index"])
    summary = summarize(results, time.time() - started)
    print(format_summary(summary))
    if FLAGS.report:
        with open(FLAGS.report, "w") as f:
            json.dump({"summary": summary, "cases": results, "nvcc": nvcc, "ccbin": ccbin}, f, indent=1)
    failed = summary["outcomes"].get(DIFFERENT, 0) + summary["outcomes"].get(STAGED_FAILED, 0) + \
        summary["outcomes"].get(STAGED_PASSED, 0)
    if failed:
        return 1
    if summary["outcomes"].get(SAME, 0) < FLAGS.expect_cases:
        print("FAIL: %d cases compared, fewer than %d" % (summary["outcomes"].get(SAME, 0), FLAGS.expect_cases))
        return 1
    if summary["outcomes"].get(BOTH_FAILED, 0) < FLAGS.expect_both_failed:
        print("FAIL: %d cases failed on both sides, fewer than %d" % (summary["outcomes"].get(BOTH_FAILED, 0), FLAGS.expect_both_failed))
        return 1
    return 0


def summarize(results, wall):
    outcomes = collections.Counter(r["outcome"] for r in results)
    options = collections.Counter(n for r in results for n in r["option_names"])
    return {
        "cases": len(results),
        "outcomes": dict(outcomes),
        "wall_s": round(wall, 1),
        "case_s_sum": round(sum(r["seconds"] for r in results), 1),
        "files_compared": sum(r["compared_files"] for r in results),
        "options": dict(sorted(options.items())),
        "sources": dict(collections.Counter(r["source"] for r in results)),
        "features": dict(collections.Counter(f for r in results for f in r["features"])),
        "arch_forms": dict(collections.Counter(r["arch_form"] for r in results)),
        "rdc": sum(1 for r in results if r["rdc"]),
        "rerun_module_id": sum(1 for r in results if r.get("notes")),
        "failing": [r["index"] for r in results if r["outcome"] not in (SAME, BOTH_FAILED, NOT_REPRODUCIBLE)],
        "not_reproducible": [r["index"] for r in results if r["outcome"] == NOT_REPRODUCIBLE],
    }


def format_summary(s):
    lines = ["fidelity_fuzz: %d cases in %.0f s: %s" % (
        s["cases"], s["wall_s"], ", ".join("%d %s" % (n, o) for o, n in sorted(s["outcomes"].items())))]
    lines.append("  %d files compared (PTX, LTO IR, cubins, fatbinaries, objects); %d cases with -rdc" % (
        s["files_compared"], s["rdc"]))
    lines.append("  options: " + ", ".join("%s %d" % kv for kv in s["options"].items()))
    lines.append("  arch forms: " + ", ".join("%s %d" % kv for kv in sorted(s["arch_forms"].items())))
    if s["failing"]:
        lines.append("  failing cases: " + " ".join(str(i) for i in s["failing"]))
    if s.get("not_reproducible"):
        lines.append("  cases where nvcc's own cicc is not reproducible: " + " ".join(str(i) for i in s["not_reproducible"]))
    return "\n".join(lines)


if __name__ == "__main__":
    app.run(main)
