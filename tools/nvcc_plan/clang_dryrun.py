"""clang's own plan: the jobs `clang -###` prints for a CUDA compile, parsed into the same Plan as nvcc's.

`clang -### -x cuda --cuda-gpu-arch=sm_80 ... -c k.cu -o k.o` prints (on
stderr) a version header, then one line per job, each argument in double
quotes. For a whole-program CUDA compile (clang 21, old or new offload
driver) the jobs are, per GPU arch, a device `clang -cc1 -triple nvptx64-...
-S` (the whole source parsed for the device, to PTX) and `ptxas --gpu-name
sm_NN`; then one `fatbinary --create` over the cubins (and the PTX it
embeds), and the host `clang -cc1 -triple <host> -emit-obj
-fcuda-include-gpubinary <fatbinary>`, which compiles the source again and
embeds the fatbinary.

`parse` names each job's step (the clang table's, stages.CLANG_TABLE):
clang_device, ptxas, fatbinary, clang_host; anything else is "unknown" (the
planner refuses a plan with one). Each Command's `arch` is clang's GPU arch
(sm_NN); a ptxas's `virtual_arch` is compute_NN of the PTX it assembles.
"""

import os
import re
import shlex
import shutil
import subprocess
import tempfile

from tools.nvcc_plan import dryrun
from tools.nvcc_plan import stages

# TMPDIR while clang plans is a fresh directory, spelled this way in the
# parsed plan: every temporary file of a job is recognized by this prefix
# (clang -### creates each one, empty, to reserve the name; the directory is
# removed after the plan).
PLAN_TMPDIR = "/rules-cuda-stages-clang-plan-tmp"

_VERSION_RE = re.compile(r"clang version ([0-9]+)\.([0-9]+)\.([0-9]+)")


def gpu_arch(virtual):
    """clang's GPU arch for a virtual arch: compute_90a -> sm_90a."""
    return "sm_" + virtual[len("compute_") :]


def parse_images(argv):
    """fatbinary's images as dicts: kind (elf/ptx), sm (80, 90a), file; clang's --image= and the --image3= form."""
    out = []
    for arg in argv:
        if arg.startswith("--image="):
            fields = dict(f.split("=", 1) for f in arg[len("--image=") :].split(","))
            profile = fields["profile"]
            out.append(
                {"kind": "elf" if profile.startswith("sm_") else "ptx", "sm": profile.split("_", 1)[1], "file": fields["file"]}
            )
        elif arg.startswith("--image3="):
            fields = dict(f.split("=", 1) for f in arg[len("--image3=") :].split(","))
            out.append({"kind": fields["kind"], "sm": fields["sm"], "file": fields["file"]})
    return out


def _classify(index, argv):
    tool = os.path.basename(argv[0])
    command = dryrun.Command(index=index, step=stages.STEP_UNKNOWN, argv=argv)
    if len(argv) > 1 and argv[1] == "-cc1":
        triple = dryrun.value_after(argv, "-triple") or ""
        out = dryrun.value_after(argv, "-o")
        command.outputs = [out] if out else []
        command.inputs = [argv[-1]]
        if triple.startswith("nvptx") and "-S" in argv:
            command.step = stages.STEP_CLANG_DEVICE
            command.arch = dryrun.value_after(argv, "-target-cpu") or ""
        elif "-fcuda-include-gpubinary" in argv and "-emit-obj" in argv:
            command.step = stages.STEP_CLANG_HOST
            command.inputs.append(dryrun.value_after(argv, "-fcuda-include-gpubinary"))
    elif re.match(r"^ptxas(-[0-9.]+)?$", tool):
        command.step = stages.STEP_PTXAS
        command.arch = dryrun.value_after(argv, "--gpu-name") or ""
        out = dryrun.value_after(argv, "--output-file")
        command.outputs = [out] if out else []
    elif tool == "fatbinary":
        command.step = stages.STEP_FATBINARY
        command.outputs = [dryrun.value_after(argv, "--create")]
        command.inputs = [im["file"] for im in parse_images(argv)]
    return command


def parse(text):
    """`clang -###` output -> (clang's version "21.1.8", dryrun.Plan of its jobs)."""
    version = ""
    argvs = []
    for line in text.splitlines():
        m = _VERSION_RE.search(line)
        if m and not version and not line.startswith(" "):
            version = ".".join(m.groups())
        if line.startswith(' "'):
            argvs.append(shlex.split(line))
        elif re.search(r"\b(error|fatal error):", line):
            raise dryrun.PlanError("clang: " + line.strip())
    if not argvs:
        raise dryrun.PlanError("clang printed no jobs (is this `clang -###` output?)")
    plan = dryrun.Plan(env=[], commands=[_classify(i, a) for i, a in enumerate(argvs)])
    ptx = {c.outputs[0]: c for c in plan.by_step(stages.STEP_CLANG_DEVICE) if c.outputs}
    for command in plan.by_step(stages.STEP_PTXAS):
        # Its input: the one argument that is a device compile's output (user
        # flags, -Xcuda-ptxas, may follow it).
        read = [a for a in command.argv[1:] if a in ptx]
        if len(read) != 1 or ptx[read[0]].arch != command.arch:
            raise dryrun.PlanError(
                "ptxas #%d (%s) reads %s, not the PTX of one device compile of that arch"
                % (command.index, command.arch, read or "no PTX")
            )
        command.inputs = read
        command.virtual_arch = "compute_" + command.arch[len("sm_") :]
    return version, plan


# On a remote executor without the C++ toolchain's clang, CudaPlan fails first.
MISSING_CLANG = (
    "the compiler %s (the C++ toolchain's clang, by its path on the machine Bazel runs on) is not on the machine "
    "that ran this action, e.g. a remote executor. Fix: build with the hermetic clang 22 "
    "(--@rules_cuda_stages//cuda_rules:host_toolchain=clang22, with CUDA 13.0), whose compiler comes with every "
    "action, or run these actions where that compiler is."
)


def run(clang, clang_args, cwd=None):
    """Runs `clang -###` and returns its output, the temporary directory spelled PLAN_TMPDIR."""
    tmp = tempfile.mkdtemp(prefix="clang-plan-")
    try:
        env = dict(os.environ, TMPDIR=tmp)
        proc = subprocess.run(
            [clang, "-###"] + list(clang_args), cwd=cwd, env=env, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise dryrun.PlanError(MISSING_CLANG % clang) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if proc.returncode != 0:
        raise dryrun.PlanError("`%s -### %s` failed:\n%s" % (clang, " ".join(clang_args), proc.stderr + proc.stdout))
    return (proc.stderr + proc.stdout).replace(tmp + "/", PLAN_TMPDIR + "/")
