"""Split compilation (nvcc's --split-compile): the build's setting, a target's, and the CPUs its actions declare.

nvcc's --split-compile=N runs cicc's optimizer (and, from CUDA 13.0, ptxas) on
parts of the device code in N threads (0: as many as the machine has; 1:
off). Here it is one setting per target, resolved from, later winning:
--@rules_cuda_stages//cuda_rules:split_compile, the build's copts, the
target's `split_compile` attribute, the target's copts. nvcc gets it once, as
--split-compile=N; the stages whose tool then runs N threads (the stage
table's `split_compile`: CudaCicc, CudaPtxas) declare N CPUs to Bazel's local
scheduler (resource_set), and 0 the whole machine.
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("//cuda_rules/private:toolchain.bzl", "toolkit_version")

visibility(["//cuda_rules/...", "//tests/..."])

SPLIT_COMPILE_FLAG = "--@rules_cuda_stages//cuda_rules:split_compile"

_NAMES = ["--split-compile", "-split-compile"]

def _fix(where):
    return ("Fix: give a thread count: {flag}=N (N >= 2 threads, 0 = every CPU of the machine, 1 = off), " +
            "`split_compile = N` on the target, or --split-compile=N in {where}.").format(flag = SPLIT_COMPILE_FLAG, where = where)

def _count(label, where, option, value):
    if not value.isdigit():
        fail("{label}: '{option}' in `{where}` is not a thread count. {fix}".format(
            label = label,
            option = option,
            where = where,
            fix = _fix(where),
        ))
    return int(value)

def take_split_compile(label, where, options):
    """Takes nvcc's --split-compile out of a list of nvcc options.

    Args:
      label: the target, for errors.
      where: where the options came from (an attribute or a flag), for errors.
      options: list of strings.

    Returns:
      (the other options, the last --split-compile's thread count or None).
    """
    rest = []
    threads = None
    skip = False
    for i, opt in enumerate(options):
        if skip:
            skip = False
            continue
        name, eq, value = opt.partition("=")
        if name not in _NAMES:
            rest.append(opt)
            continue
        if not eq:
            if i + 1 >= len(options):
                fail("{label}: '{option}' in `{where}` needs a thread count. {fix}".format(
                    label = label,
                    option = opt,
                    where = where,
                    fix = _fix(where),
                ))
            value = options[i + 1]
            opt = opt + " " + value
            skip = True
        threads = _count(label, where, opt, value)
    return rest, threads

def split_compile_threads(ctx, build_copts_threads, copts_threads):
    """The target's split compilation threads: 1 (off), 0 (the machine's), or N.

    Args:
      ctx: the rule context (its `split_compile` attribute and the flag).
      build_copts_threads: --split-compile of the build's copts, or None.
      copts_threads: --split-compile of the target's copts, or None.

    Returns:
      int.
    """
    threads = ctx.attr._split_compile[BuildSettingInfo].value
    if threads < 0:
        fail("{}: {}={} is not a thread count. {}".format(ctx.label, SPLIT_COMPILE_FLAG, threads, _fix("copts")))
    for override in (build_copts_threads, ctx.attr.split_compile if ctx.attr.split_compile >= 0 else None, copts_threads):
        if override != None:
            threads = override
    return threads

def split_compile_options(threads):
    """nvcc's option for the setting: none when off."""
    return [] if threads == 1 else ["--split-compile=%d" % threads]

def _arch_number(arch):
    digits = ""
    for c in arch.elems():
        if c.isdigit():
            digits += c
        elif digits:
            break
    return int(digits) if digits else None

def splits_stage(stage, threads, version, arch = ""):
    """Whether the stage's tool runs `threads` threads with this toolkit (nvcc gives it --split-compile).

    Args:
      stage: a stage record (stages.bzl).
      threads: the unit's setting (1: off).
      version: the toolkit's version, e.g. "13.0".
      arch: the action's arch (e.g. "compute_100"): none at or above the stage's
        split_compile_below_arch splits (stages.py says why).

    Returns:
      True when the action runs `threads` threads.
    """
    if threads == 1 or stage.split_compile == "" or toolkit_version(version) < toolkit_version(stage.split_compile):
        return False
    number = _arch_number(arch)
    return stage.split_compile_below_arch == "" or number == None or number < int(stage.split_compile_below_arch)

# Bazel wants a resource_set callback to be a top-level function: one per
# count. A count between two of them declares the next larger one.
def _cpu_2(_os, _inputs):
    return {"cpu": 2, "memory": 250}

def _cpu_3(_os, _inputs):
    return {"cpu": 3, "memory": 250}

def _cpu_4(_os, _inputs):
    return {"cpu": 4, "memory": 250}

def _cpu_6(_os, _inputs):
    return {"cpu": 6, "memory": 250}

def _cpu_8(_os, _inputs):
    return {"cpu": 8, "memory": 250}

def _cpu_12(_os, _inputs):
    return {"cpu": 12, "memory": 250}

def _cpu_16(_os, _inputs):
    return {"cpu": 16, "memory": 250}

def _cpu_24(_os, _inputs):
    return {"cpu": 24, "memory": 250}

def _cpu_32(_os, _inputs):
    return {"cpu": 32, "memory": 250}

def _cpu_48(_os, _inputs):
    return {"cpu": 48, "memory": 250}

def _cpu_64(_os, _inputs):
    return {"cpu": 64, "memory": 250}

# More CPUs than any machine: Bazel runs such an action when no other holds a
# CPU, and starts none beside it (its ResourceManager admits one request larger
# than the machine when nothing else runs).
_WHOLE_MACHINE = 1024

def _cpu_all(_os, _inputs):
    return {"cpu": _WHOLE_MACHINE, "memory": 250}

_CPU_SETS = [(2, _cpu_2), (3, _cpu_3), (4, _cpu_4), (6, _cpu_6), (8, _cpu_8), (12, _cpu_12), (16, _cpu_16), (24, _cpu_24), (32, _cpu_32), (48, _cpu_48), (64, _cpu_64)]

def _cpu_set(threads):
    """(CPUs, resource_set callback) for an action whose tool runs `threads` split threads (not 1)."""
    for count, fn in _CPU_SETS:
        if 0 < threads and threads <= count:
            return count, fn
    return _WHOLE_MACHINE, _cpu_all

def declared_cpus(threads):
    """The CPUs an action of `threads` split threads declares.

    Args:
      threads: the setting (1: off, 0: every CPU of the machine).

    Returns:
      int: 1 for off, N rounded up to a count of _CPU_SETS, more than any machine has for 0.
    """
    return 1 if threads == 1 else _cpu_set(threads)[0]

def split_resource_set(threads):
    """The resource_set of an action whose tool runs `threads` split threads.

    Args:
      threads: the setting (1: off, 0: every CPU of the machine).

    Returns:
      A top-level function for actions.run(resource_set = ...), or None when off (Bazel's default: 1 CPU).
    """
    return None if threads == 1 else _cpu_set(threads)[1]
