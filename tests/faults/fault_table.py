"""What //tests/faults:faults_test asserts, as data: each fault, each command after it, and what that command must show.

faults_test.py injects each fault and checks every step against these
records (exit code, the messages Bazel or the tool print, the CUDA stages
that had to run, the outputs against a build with no cache); docs/update.py
renders the same records as docs/remote.md's table "Faults, what a user
sees". So the table says exactly what the test checks.
"""

import dataclasses

# What Bazel and tools/repair_cache print (substrings the test looks for).
RETRY = "Found transient remote cache error, retrying the build..."
EVICTED = "Failed to fetch blobs because they do not exist remotely"
CACHE_ERROR = "Failed to fetch blobs because of a remote cache error"
MISMATCH = "does not match received digest"
DOWNLOAD_WARNING = "WARNING: Remote Cache:"
KILLED = "Server terminated abruptly"
REPAIRED = ": removed"
STORED_AS = "stored as bazel-out/"

# The commands, as a user types them.
DEV_BUILD = "`bazel build --…:archs=sm_90`"
REPAIR = "`bazel run @rules_cuda_stages//tools/repair_cache -- CACHE`"

# Settings a scenario's checkout builds with.
SHIPPED = "the `.bazelrc`'s"
DEFAULTS = "Bazel 7's defaults + retries"
DOWNLOAD_ALL = "`--remote_download_all`"

NONZERO = "not 0"

# What `bazel clean` and a build from the cache (--remote_download_all) show
# after a fault's steps.
ALL_HITS = "all hits, outputs identical"
# After a fault whose first build failed: Bazel stops a failing build's cache
# uploads (`WARNING: Remote Cache: java.lang.InterruptedException`), yet the
# output base's action cache keeps what those actions made, so no later build
# there uploads it. A clean build elsewhere re-runs those stages once (any
# stage but a device one that the fault's arch set had served) and uploads
# them; from then on, all hits.
ONCE_MORE = ("outputs identical; a stage whose upload the failed build cut short runs once more (never CudaCicc "
             "or CudaPtxas); the same again: all hits, outputs identical")


@dataclasses.dataclass(frozen=True)
class Step:
    """One command after the fault, and what the test asserts of it."""

    command: str
    exit_code: object = 0  # an int, or NONZERO
    sees: tuple = ()  # each appears in its output
    times: tuple = ()  # ((text, n), ...): text appears exactly n times
    absent: tuple = ()  # none of these appears
    ran: tuple = ()  # ((mnemonic, arch), ...): CUDA stages that ran (no cache hit), from the execution log
    only_ran: bool = False  # and no other CUDA stage ran
    identical: bool = False  # every output equals the reference build's (no cache) for the same archs


@dataclasses.dataclass(frozen=True)
class Fault:
    name: str  # faults_test's test method checks it: test_<name>
    fault: str  # what the test does to the cache or the build (Markdown)
    settings: str
    steps: tuple
    served_after: str = ALL_HITS  # then `bazel clean` + a build from the cache (--remote_download_all)


# A damaged cubin before the developer's build, with the .bazelrc's download
# regex: Bazel finds it when the stage hits, warns and re-runs that stage; the
# blob stays (Bazel never replaces one) until repair_cache removes it.
_RECOVERS = (
    Step(DEV_BUILD, sees=(DOWNLOAD_WARNING, MISMATCH), ran=(("CudaPtxas", "sm_90"),), identical=True),
    Step("`bazel clean`, the same build", sees=(MISMATCH,), ran=(("CudaPtxas", "sm_90"),), only_ran=True),
    Step(REPAIR, sees=(REPAIRED, STORED_AS)),
    Step("`bazel clean`, the same build", absent=(MISMATCH,), ran=(("CudaPtxas", "sm_90"),), only_ran=True,
         identical=True),
)

# The same with Bazel's defaults: the fatbinary's download of the cubin fails,
# and so does every retry; after repair_cache the same build passes (its one
# retry re-runs the stage).
_FAILS_ONCE = (
    Step(DEV_BUILD, exit_code=39, sees=(CACHE_ERROR, MISMATCH), times=((RETRY, 5),)),
    Step(REPAIR, sees=(REPAIRED, STORED_AS)),
    Step("the same build", times=((RETRY, 1),), ran=(("CudaPtxas", "sm_90"),), identical=True),
)

FAULTS = [
    Fault(
        name="evicted_disk_cache",
        fault="a build served from a `--disk_cache` (its stage outputs left in the cache), the cache directory "
              "removed, then a build for more archs in the same Bazel server",
        settings=DEFAULTS,
        steps=(
            Step("a build for more archs, `--experimental_remote_cache_eviction_retries=0`", exit_code=39,
                 sees=(EVICTED,)),
            Step("the same build with the retries", sees=(RETRY,), identical=True),
        ),
    ),
    Fault(
        name="evicted_remote_cache",
        fault="every CAS blob deleted on a REAPI server (Bazel's RemoteWorker) between a build served from it and a "
              "build for more archs, `--config=remote-cache`",
        settings=DEFAULTS,
        steps=(Step("a build for more archs", sees=(RETRY,), identical=True),),
    ),
    Fault(
        name="concurrent_builds",
        fault="two builds of different arch sets (`sm_80,sm_90,compute_90` and `sm_86,sm_90`) in two output bases "
              "sharing one `--disk_cache` at once",
        settings=DOWNLOAD_ALL,
        steps=(Step("both builds", identical=True),),
    ),
    Fault(
        name="killed_build",
        fault="the Bazel server and the running `cicc` or `ptxas` killed (SIGKILL) mid-build, disk cache",
        settings=DEFAULTS,
        steps=(
            Step("the build", exit_code=NONZERO, sees=(KILLED,)),
            Step("the same build again", identical=True),
        ),
    ),
    Fault(
        name="damaged_cubin_disk_cache",
        fault="CI's build fills a `--disk_cache`, the sm_90 cubin's blob is damaged (one byte flipped), then the "
              "developer's `bazel clean` and arch-subset build",
        settings=SHIPPED,
        steps=_RECOVERS,
    ),
    Fault(
        name="damaged_cubin_disk_cache_defaults",
        fault="the same, the blob truncated",
        settings=DEFAULTS,
        steps=_FAILS_ONCE,
        served_after=ONCE_MORE,
    ),
    Fault(
        name="damaged_cubin_remote_cache",
        fault="the same with a REAPI cache (Bazel's RemoteWorker, `--config=remote-cache`), the blob zeroed on the "
              "server's disk",
        settings=SHIPPED,
        steps=_RECOVERS,
    ),
    Fault(
        name="damaged_cubin_remote_cache_defaults",
        fault="the same, one byte flipped; the repair runs on the server's `--cas_path` while it serves",
        settings=DEFAULTS,
        steps=_FAILS_ONCE,
        served_after=ONCE_MORE,
    ),
]

BY_NAME = {f.name: f for f in FAULTS}


def _step_text(step):
    parts = ["exit %s" % step.exit_code]
    parts += ["`%s`" % s.strip(". ") for s in step.sees]
    parts += ["`%s` ×%d" % (text.strip(". "), n) for text, n in step.times]
    parts += ["no `%s`" % s.strip(". ") for s in step.absent]
    if step.ran:
        parts.append("re-runs %s%s" % ("only " if step.only_ran else "", ", ".join("%s %s" % r for r in step.ran)))
    if step.identical:
        parts.append("outputs identical to an uncached build's")
    return "%s: %s" % (step.command, ", ".join(parts))


def markdown_table():
    """docs/remote.md's table: one row per fault, its steps in order as the test asserts them."""
    rows = [
        "| fault | settings | then (each step as the test asserts it) | afterwards, `bazel clean` and a build from the cache |",
        "| --- | --- | --- | --- |",
    ]
    for f in FAULTS:
        rows.append("| %s | %s | %s | %s |" % (
            f.fault,
            f.settings,
            "<br>".join("%d. %s" % (i + 1, _step_text(s)) for i, s in enumerate(f.steps)),
            f.served_after,
        ))
    return "\n" + "\n".join(rows) + "\n"
