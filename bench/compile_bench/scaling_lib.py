"""Pure logic of the scaling benchmark (bench/run scaling): its plan, what it parses, its tables.

Standard library only: bench/run runs it with the host's python3, and the
unit test under Bazel.

A run is one measured build, a dict saved in results-scaling-<name>.json:
  shape, sources, targets      the generated workspace (scaling_gen.py)
  archs                        the arch list compiled
  variant                      bazel_staged, bazel_unstaged, nvcc, nvcc_t0, runner
  scenario                     cold (every Bazel one writes a binary execution
                               log), cold_nolog (without)
  rep                          repetition (ratios pair runs of the same one)
  wall_s, cpu_actions_s, cpu_server_s, cpu_s   as bench/run measures them
and for Bazel's cold builds:
  analysis_s                   loading + analysis of a --nobuild pass in a fresh
                               server (the profile's phase markers)
  analysis_wall_s              that pass's wall time, server start included
  heap_analysis_mb             used heap after a full GC, after that pass
  heap_build_mb                the same after the cold build
  stages                       {mnemonic: {actions, executed, executed_s}} of the
                               cold build's execution log (cache_report)
  log_mb                       the execution log's size
  null_s                       wall of null builds right after (3)
  edit                         the one-file edit built incrementally:
                               {wall_s, cpu_actions_s, stages}
"""

import re

from bench.compile_bench import compile_bench_lib as lib
from bench.compile_bench import scaling_gen
from tools.nvcc_plan import stages as stage_table

# Variant tokens of a case: (variant, scenario, staged) for Bazel, (variant,) for nvcc.
BAZEL_VARIANTS = {
    "staged": ("bazel_staged", "cold", True),
    "unstaged": ("bazel_unstaged", "cold", False),
    "staged_nolog": ("bazel_staged", "cold_nolog", True),
    "unstaged_nolog": ("bazel_unstaged", "cold_nolog", False),
}
NVCC_VARIANTS = ("nvcc", "nvcc_t0", "runner")
FLAG_TOKENS = ("scaleout",)
NAMES = {
    "bazel_staged": "Bazel, staged",
    "bazel_unstaged": "Bazel, staged=false",
    "nvcc": "nvcc per file",
    "nvcc_t0": "nvcc -t 0 per file",
    "runner": "the stages without Bazel (nvcc_plan --run) per file",
}
VARIANT_ORDER = ("bazel_staged", "bazel_unstaged", "nvcc", "nvcc_t0", "runner")
ARCH_KEYS = ("4", "1")

# Presets: cases "SHAPE/ARCHS/REPS/VARIANTS" (ARCHS: 4 = --archs, 1 = --dev_archs).
_FULL_SMALL = [
    "n40/4/3/staged+unstaged+nvcc+nvcc_t0+staged_nolog+unstaged_nolog",
    "n50/4/3/staged+unstaged+nvcc+nvcc_t0",
    "n50/1/3/staged+unstaged+nvcc+nvcc_t0",
    "n200/4/1/staged+unstaged+nvcc+nvcc_t0",
    "n200/1/1/staged+unstaged+nvcc+nvcc_t0",
    "n200t10/4/1/staged+unstaged",
    "n200t10/1/1/staged+unstaged",
]
_FULL_1000 = [
    "n1000/4/1/staged+unstaged+scaleout",
    "n1000/1/1/staged+unstaged",
]
PRESETS = {
    # The 40-file target (with and without the execution log), and the
    # per-source cost from 50 to 200 sources: about 25 minutes on 2 cores.
    "quick": [
        "n40/4/3/staged+unstaged+staged_nolog+unstaged_nolog",
        "n50/4/1/staged+unstaged+nvcc+nvcc_t0",
        "n50/1/1/staged+unstaged",
        "n200/4/1/staged+unstaged",
    ],
    # Everything the issue asks for: about 2 hours on 2 cores (bench/run
    # scaling --dry_run prints the estimate per case), or in two sittings of
    # about an hour each: full_small, then full_1000 with --append.
    "full": _FULL_SMALL + _FULL_1000,
    "full_small": _FULL_SMALL,
    "full_1000": _FULL_1000,
    # Trying the harness out (every step, tiny builds).
    "validate": [
        "n5/4/1/staged+unstaged+nvcc+nvcc_t0+staged_nolog+unstaged_nolog+scaleout",
        "n10t2/1/1/staged+unstaged+nvcc+nvcc_t0",
    ],
}


class CaseError(ValueError):
    """A case that does not parse, with what is accepted."""


class Case:
    """What to measure for one shape and arch setting, and how often."""

    def __init__(self, spec, shape, archs_key, reps, variants, scaleout):
        self.spec = spec
        self.shape = shape
        self.archs_key = archs_key
        self.reps = reps
        self.variants = variants  # variant tokens, in the order given
        self.scaleout = scaleout

    def __repr__(self):
        return "Case(%r)" % self.spec


def parse_case(spec):
    """Case from 'n200t10/4/1/staged+unstaged' (shape / 4 or 1 archs / repetitions / variants)."""
    parts = spec.strip().split("/")
    if len(parts) != 4:
        raise CaseError("case %r: expected SHAPE/ARCHS/REPS/VARIANTS, e.g. n200/4/1/staged+unstaged+nvcc+nvcc_t0" % spec)
    shape_name, archs_key, reps, variants = parts
    try:
        shape = scaling_gen.parse_shape(shape_name)
    except scaling_gen.ShapeError as e:
        raise CaseError("case %r: %s" % (spec, e))
    if archs_key not in ARCH_KEYS:
        raise CaseError("case %r: ARCHS is 4 (--archs) or 1 (--dev_archs), not %r" % (spec, archs_key))
    if not reps.isdigit() or int(reps) < 1:
        raise CaseError("case %r: REPS is a number of repetitions >= 1, not %r" % (spec, reps))
    tokens = [t for t in variants.split("+") if t]
    known = list(BAZEL_VARIANTS) + list(NVCC_VARIANTS) + list(FLAG_TOKENS)
    unknown = [t for t in tokens if t not in known]
    if unknown or not tokens:
        raise CaseError("case %r: unknown variant %s; known: %s" % (spec, ", ".join(unknown) or "(none given)", "+".join(known)))
    if len(set(tokens)) != len(tokens):
        raise CaseError("case %r: a variant is given twice" % spec)
    scaleout = "scaleout" in tokens
    tokens = [t for t in tokens if t != "scaleout"]
    if scaleout and not {"staged", "unstaged"} <= set(tokens):
        raise CaseError("case %r: scaleout needs the logs of both cold builds: add staged+unstaged" % spec)
    if not tokens:
        raise CaseError("case %r: no build to measure" % spec)
    return Case(spec.strip(), shape, archs_key, int(reps), tokens, scaleout)


def parse_cases(specs):
    """Cases from a comma-separated list, or a preset's name."""
    if specs in PRESETS:
        specs = ",".join(PRESETS[specs])
    cases = [parse_case(s) for s in specs.split(",") if s.strip()]
    if not cases:
        raise CaseError("no case given (presets: %s)" % ", ".join(sorted(PRESETS)))
    seen = set()
    for c in cases:
        key = (c.shape.name, c.archs_key)
        if key in seen:
            raise CaseError("case %r: shape %s with %s archs is given twice" % (c.spec, c.shape.name, c.archs_key))
        seen.add(key)
    return cases


def rep_order(tokens, rep):
    """Variants in the given order in odd repetitions, reversed in even ones."""
    return list(tokens) if rep % 2 else list(reversed(tokens))


# --- planning: rough 2-core costs, for --dry_run and the disk check -------------------------
# Wall seconds per source on 2 cores, from the 40-file measurement
# (4 archs: staged 35.2 s, staged=false 25.5 s; nvcc ~ staged=false) and
# bench/run's 1-arch/4-arch ratio of small plain kernels. Estimates only.
_WALL_PER_SOURCE = {
    ("4", "staged"): 0.88, ("4", "unstaged"): 0.64, ("4", "nvcc"): 0.60, ("4", "nvcc_t0"): 0.65, ("4", "runner"): 0.65,
    ("1", "staged"): 0.45, ("1", "unstaged"): 0.30, ("1", "nvcc"): 0.28, ("1", "nvcc_t0"): 0.30, ("1", "runner"): 0.32,
}
# A Bazel variant's fixed cost per repetition (server start, analysis, heap, null builds, edit).
_BAZEL_FIXED_S = 25.0
_BAZEL_PER_SOURCE_S = 0.06
# Execution log MB per source (binary), and cache_report's seconds per MB of log.
_LOG_MB_PER_SOURCE = {("4", True): 1.9, ("4", False): 0.26, ("1", True): 1.2, ("1", False): 0.25}
_REPORT_S_PER_MB = 0.07
# Output base + disk cache GB per source of a staged build (preprocessed files dominate).
_DISK_GB_PER_SOURCE = {"4": 0.010, "1": 0.0045}


def _base(token):
    return token.replace("_nolog", "")


def estimate_s(case):
    """Rough wall seconds of a case on 2 cores (planning only)."""
    n = case.shape.sources
    total = 0.0
    for token in case.variants:
        total += case.reps * _WALL_PER_SOURCE[(case.archs_key, _base(token))] * n
        if token in BAZEL_VARIANTS:
            total += case.reps * (_BAZEL_FIXED_S + _BAZEL_PER_SOURCE_S * n)
            if BAZEL_VARIANTS[token][1] == "cold":
                log_mb = _LOG_MB_PER_SOURCE[(case.archs_key, BAZEL_VARIANTS[token][2])] * n
                total += case.reps * _REPORT_S_PER_MB * log_mb
        else:
            total += case.reps * 3.0  # bazel run of nvcc_runs
    if case.scaleout:
        total += 2 * _REPORT_S_PER_MB * n * (_LOG_MB_PER_SOURCE[(case.archs_key, True)] +
                                             _LOG_MB_PER_SOURCE[(case.archs_key, False)])
    return total


def disk_gb(case):
    """Rough free disk a case needs at its peak (outputs, disk cache, logs kept)."""
    n = case.shape.sources
    gb = 2 * _DISK_GB_PER_SOURCE[case.archs_key] * n
    if case.scaleout:
        gb += n * (_LOG_MB_PER_SOURCE[(case.archs_key, True)] + _LOG_MB_PER_SOURCE[(case.archs_key, False)]) / 1024
    return gb + 1.0


def fmt_duration(seconds):
    minutes = int(round(seconds / 60.0))
    return "%d min" % minutes if minutes < 60 else "%d h %02d min" % (minutes // 60, minutes % 60)


def plan_text(cases):
    lines = []
    total = 0.0
    for c in cases:
        s = estimate_s(c)
        total += s
        lines.append("  %-72s ~%s, needs ~%.0f GB free" % (c.spec, fmt_duration(s), disk_gb(c)))
    lines.append("  total ~%s (a rough 2-core estimate)" % fmt_duration(total))
    return "\n".join(lines)


# --- parsing what Bazel and the tools print -----------------------------------------------

_HEAP = re.compile(r"\b([0-9]+)(B|KB|MB|GB)\b")
# Bazel prints sizes in decimal units (StringUtilities.prettyPrintBytes: 9999B, 9999KB, 99999MB, 100GB).
_UNIT_MB = {"B": 1e-6, "KB": 1e-3, "MB": 1.0, "GB": 1e3}


def parse_heap_mb(text):
    """MB (10^6 bytes) from `bazel info used-heap-size-after-gc` ('43MB', or 'used-heap-size-after-gc: 43MB')."""
    m = _HEAP.search(text or "")
    if not m:
        raise ValueError("not a heap size: %r" % (text or "")[:80])
    return round(int(m.group(1)) * _UNIT_MB[m.group(2)], 3)


# Bazel 7's phase markers (instant events of category "build phase marker").
_ANALYSIS_START = ("Evaluate target patterns", "Load and analyze dependencies",
                   "Load, analyze dependencies and build artifacts")
_ANALYSIS_END = ("Analyze licenses", "Prepare for build", "Build artifacts", "Complete build", "Finish")


def analysis_s(profile):
    """Seconds of loading + analysis of a --nobuild pass, from its JSON trace profile (a dict).

    From the first marker of target-pattern evaluation or loading to the first
    marker after it that ends analysis; None when the markers are missing.
    """
    markers = sorted((e.get("ts", 0), e.get("name", "")) for e in profile.get("traceEvents", [])
                     if isinstance(e, dict) and e.get("cat") == "build phase marker")
    start = next((ts for ts, name in markers if name in _ANALYSIS_START), None)
    if start is None:
        return None
    end = next((ts for ts, name in markers if ts > start and name in _ANALYSIS_END), None)
    return None if end is None else round((end - start) / 1e6, 3)


def stage_totals(rows):
    """{mnemonic: {actions, executed, executed_s}} from cache_report --format=json rows (summed over archs)."""
    out = {}
    for r in rows:
        t = out.setdefault(r["stage"], {"actions": 0, "executed": 0, "executed_s": 0.0})
        t["actions"] += r["actions"]
        t["executed"] += r["executed"]
        t["executed_s"] += r["executed_s"]
    for t in out.values():
        t["executed_s"] = round(t["executed_s"], 3)
    return out


def count_actions(stages, executed=False):
    return sum(v["executed" if executed else "actions"] for v in (stages or {}).values())


def plan_share(stages):
    """CudaPlan's share of the build's action time (executed spawns), or None."""
    total = sum(v["executed_s"] for v in (stages or {}).values())
    if not total:
        return None
    return stages.get(stage_table.PLAN_MNEMONIC, {}).get("executed_s", 0.0) / total


# --- tables --------------------------------------------------------------------------------


def key_of(run):
    return (run["shape"], run["archs"], run["variant"], run.get("scenario", "cold"))


def group(runs):
    out = {}
    for run in sorted(runs, key=lambda r: r["rep"]):
        out.setdefault(key_of(run), []).append(run)
    return out


def shapes_of(runs):
    """Shapes measured, by sources then targets (fewest first), as (name, sources, targets)."""
    seen = {(r["shape"], r["sources"], r["targets"]) for r in runs}
    return sorted(seen, key=lambda s: (s[1], -s[2], s[0]))


def nvcc_runs_for(groups, runs, sources, archs, variant):
    """nvcc runs for a shape: any shape's with the same sources (scaling_gen makes them the same files)."""
    for shape, n, _ in shapes_of(runs):
        if n == sources:
            found = groups.get((shape, archs, variant, "cold"))
            if found:
                return found, shape
    return [], None


def per_source(run, name):
    v = lib.metric(run, name)
    return None if v is None else v / run["sources"]


def _median(runs, fn):
    return lib.median([fn(r) for r in runs])


def _fmt_ms(seconds):
    return "–" if seconds is None else ("%.0f ms" % (1000 * seconds) if seconds < 10 else lib.fmt_s(seconds))


def _fmt_mb(mb):
    return "–" if mb is None else ("%d MB" % mb if mb < 10240 else "%.1f GB" % (mb / 1024.0))


def _spread(runs, fn, fmt):
    values = [fn(r) for r in runs]
    lo, hi = lib.spread(values)
    if lo is None:
        return "–"
    med = lib.median(values)
    if len([v for v in values if v is not None]) == 1:
        return fmt(med)
    low, high = fmt(lo), fmt(hi)
    unit = high.rsplit(" ", 1)[-1]
    if low.endswith(" " + unit):
        low = low[: -len(unit) - 1]  # '26.0–28.0 s'
    return "%s (%s–%s)" % (fmt(med), low, high)


def _ratio(a_runs, b_runs, metric):
    return lib.fmt_ratio(lib.ratio_summary(a_runs, b_runs, metric)) if a_runs and b_runs else "–"


def n_archs(archs):
    """Archs of a list counted as gencode entries: sm_90,compute_90 is one."""
    return len({a.split("_", 1)[1] for a in archs.split(",") if "_" in a})


def archs_label(archs):
    n = n_archs(archs)
    return "%d arch%s" % (n, "" if n == 1 else "s")


def shapes_at(runs, archs):
    return shapes_of([r for r in runs if r["archs"] == archs])


def cold_table(runs, archs):
    """Cold builds per shape and variant: wall and CPU, per source, and staged ÷ this.

    Rows without the execution log (cold_nolog) compare with the staged build
    without it; all others with the staged build that writes it.
    """
    groups = group(runs)
    rows = []
    for shape, n, t in shapes_at(runs, archs):
        for variant in VARIANT_ORDER:
            for scenario in ("cold", "cold_nolog"):
                label = NAMES[variant] + (", no execution log" if scenario == "cold_nolog" else "")
                if variant in NVCC_VARIANTS:
                    if scenario != "cold":
                        continue
                    vruns, source_shape = nvcc_runs_for(groups, runs, n, archs, variant)
                    if source_shape and source_shape != shape:
                        label += " (%s's runs: the same files)" % source_shape
                else:
                    vruns = groups.get((shape, archs, variant, scenario), [])
                if not vruns:
                    continue
                staged = groups.get((shape, archs, "bazel_staged", scenario), [])
                rows.append([
                    "%s (%d in %d)" % (shape, n, t), label, len(vruns),
                    _spread(vruns, lambda r: r["wall_s"], lib.fmt_s),
                    _spread(vruns, lambda r: per_source(r, "wall_s"), _fmt_ms),
                    _spread(vruns, lambda r: per_source(r, "cpu_actions_s"), _fmt_ms),
                    _spread(vruns, lambda r: per_source(r, "cpu_server_s") if "cpu_server_s" in r else None, _fmt_ms),
                    _ratio(staged, vruns, "wall_s"), _ratio(staged, vruns, "cpu_actions_s"),
                ])
    return lib.markdown_table(
        ["shape (sources in targets)", "build", "runs", "wall", "wall per source", "CPU of the compilers per source",
         "CPU of the Bazel server per source", "staged ÷ this, wall", "staged ÷ this, CPU"], rows)


def bazel_table(runs, archs):
    """Bazel's side per shape: analysis, memory, actions, null build, one-file edit, CudaPlan, the log."""
    groups = group(runs)
    rows = []
    for shape, n, t in shapes_at(runs, archs):
        for variant in ("bazel_staged", "bazel_unstaged"):
            vruns = groups.get((shape, archs, variant, "cold"), [])
            if not vruns:
                continue
            last = vruns[-1]
            edit = last.get("edit") or {}
            null = [lib.median(r.get("null_s") or [None]) for r in vruns]
            rows.append([
                "%s (%d in %d)" % (shape, n, t), NAMES[variant],
                _spread(vruns, lambda r: r.get("analysis_s"), lib.fmt_s),
                _spread(vruns, lambda r: r.get("analysis_s") and r["analysis_s"] / n, _fmt_ms),
                _spread(vruns, lambda r: r.get("heap_analysis_mb"), _fmt_mb),
                _spread(vruns, lambda r: r.get("heap_build_mb"), _fmt_mb),
                "%d (%.1f per source)" % (count_actions(last.get("stages")), count_actions(last.get("stages")) / n),
                lib.fmt_s(lib.median(null)),
                "%s, %d actions" % (lib.fmt_s(edit.get("wall_s")), count_actions(edit.get("stages"), executed=True))
                if edit else "–",
                lib.fmt_pct(lib.median([plan_share(r.get("stages")) for r in vruns])) if variant == "bazel_staged" else "–",
                _fmt_mb(last.get("log_mb")),
            ])
    return lib.markdown_table(
        ["shape", "build", "loading + analysis", "per source", "heap after analysis", "heap after the build",
         "actions (spawns)", "null build", "one-file edit: wall, actions run", "CudaPlan share of action time",
         "execution log"], rows)


def flatness_table(runs, archs, metric="wall_s"):
    """Cost per source against the number of sources, one row per build (one target per source)."""
    groups = group(runs)
    shapes = [s for s in shapes_at(runs, archs) if s[1] == s[2]]
    if not shapes:
        return "(no shape with one target per source)"
    rows = []
    for variant in VARIANT_ORDER:
        cells = []
        values = []
        for shape, n, _ in shapes:
            vruns = groups.get((shape, archs, variant, "cold"), [])
            v = _median(vruns, lambda r: per_source(r, metric)) if vruns else None
            values.append(v)
            cells.append(_fmt_ms(v))
        if all(v is None for v in values):
            continue
        known = [v for v in values if v is not None]
        growth = "%.2fx" % (known[-1] / known[0]) if len(known) >= 2 and known[0] else "–"
        rows.append([NAMES[variant]] + cells + [growth])
    return lib.markdown_table(["build"] + ["%s" % s[0] for s in shapes] + ["largest ÷ smallest"], rows)


def edit_stages_text(runs, archs):
    """Per shape, what the staged one-file edit re-ran (its last repetition)."""
    groups = group(runs)
    lines = []
    for shape, n, t in shapes_at(runs, archs):
        vruns = groups.get((shape, archs, "bazel_staged", "cold"), [])
        edit = (vruns[-1].get("edit") or {}) if vruns else {}
        if edit.get("stages"):
            ran = ", ".join("%s %d" % (m, v["executed"]) for m, v in sorted(edit["stages"].items()) if v["executed"])
            lines.append("- %s: %s" % (shape, ran or "nothing"))
    return "\n".join(lines)


def stage_share_table(runs, archs):
    """Staged cold builds: action time per stage and source, and each stage's share."""
    groups = group(runs)
    shapes = [s for s in shapes_of(runs) if groups.get((s[0], archs, "bazel_staged", "cold"))]
    if not shapes:
        return ""
    mnemonics = []
    for shape, _, _ in shapes:
        for m in groups[(shape, archs, "bazel_staged", "cold")][-1].get("stages", {}):
            if m not in mnemonics:
                mnemonics.append(m)
    order = stage_table.pipeline_mnemonics()
    mnemonics.sort(key=lambda m: (order.index(m) if m in order else len(order), m))
    rows = []
    for m in mnemonics:
        row = [m]
        for shape, n, _ in shapes:
            vruns = groups[(shape, archs, "bazel_staged", "cold")]
            per = _median(vruns, lambda r: r.get("stages", {}).get(m, {}).get("executed_s", 0.0) / n)
            total = _median(vruns, lambda r: sum(v["executed_s"] for v in r.get("stages", {}).values()) / n)
            row.append("%s (%.1f %%)" % (_fmt_ms(per), 100 * per / total if total else 0))
        rows.append(row)
    return lib.markdown_table(["stage: action time per source (share)"] + [s[0] for s in shapes], rows)


def targets_table(runs, archs4, archs1, corpus=None):
    """Issue 15's targets, measured (corpus: bench/run's results, for the corpus target)."""
    groups = group(runs)
    rows = []

    def pair(shape, archs, scenario):
        return (groups.get((shape, archs, "bazel_staged", scenario), []),
                groups.get((shape, archs, "bazel_unstaged", scenario), []))

    for scenario, how in (("cold_nolog", "without the execution log (as a user builds)"),
                          ("cold", "with the execution log")):
        staged, unstaged = pair("n40", archs4, scenario)
        s = lib.ratio_summary(staged, unstaged, "wall_s") if staged and unstaged else None
        rows.append(["staged ≤ 1.10x of staged=false wall, 40 files, 4 archs", "n40, %s" % how, lib.fmt_ratio(s),
                     _verdict(s, s and s["median"] <= 1.10)])
    if corpus:
        cg = lib.group(corpus.get("runs", []))
        staged = cg.get(("bazel_staged", "cold", archs4, "corpus", None), [])
        t0 = cg.get(("nvcc_t0", "cold", archs4, "corpus", None), [])
        s = lib.ratio_summary(staged, t0, "wall_s") if staged and t0 else None
        rows.append(["≤ 1.0x of nvcc -t 0 per file, the corpus, 4 archs", "bench/run's corpus results",
                     lib.fmt_ratio(s), _verdict(s, s and s["median"] <= 1.0)])
    else:
        rows.append(["≤ 1.0x of nvcc -t 0 per file, the corpus, 4 archs", "bench/run (the corpus benchmark)",
                     "not in these results", ""])
    for archs in (archs4, archs1):
        shares = []
        for shape, n, t in shapes_of(runs):
            for r in groups.get((shape, archs, "bazel_staged", "cold"), []):
                share = plan_share(r.get("stages"))
                if share is not None:
                    shares.append((share, shape))
        if shares:
            worst = max(shares)
            rows.append(["CudaPlan ≤ 2 % of action time", "staged cold builds, %s: worst (%s)" % (archs, worst[1]),
                         lib.fmt_pct(worst[0]), _verdict(worst, worst[0] <= 0.02)])
    for archs in (archs4, archs1):
        for variant in ("bazel_staged", "bazel_unstaged"):
            vruns = groups.get(("n1000", archs, variant, "cold"), [])
            nulls = [x for r in vruns for x in (r.get("null_s") or [])]
            if nulls:
                med = lib.median(nulls)
                rows.append(["null build of 1000 files < 2 s", "%s, %s, median of %d" % (NAMES[variant], archs, len(nulls)),
                             lib.fmt_s(med), _verdict(med, med < 2.0)])
    for archs in (archs4, archs1):
        for metric, what in (("wall_s", "wall"), ("cpu_s", "CPU (all)")):
            small = _median(groups.get(("n50", archs, "bazel_staged", "cold"), []), lambda r: per_source(r, metric))
            big = _median(groups.get(("n1000", archs, "bazel_staged", "cold"), []), lambda r: per_source(r, metric))
            if small and big:
                g = big / small
                rows.append(["cost per file flat from 50 to 1000 (≤ 1.10x)", "staged, %s, %s per source: n1000 ÷ n50" % (archs, what),
                             "%.2fx" % g, _verdict(g, g <= 1.10)])
    seen = set()
    for row in rows:
        if row[0] in seen:
            row[0] = ""
        else:
            seen.add(row[0])
    return lib.markdown_table(["target", "measured as", "median (min–max)", ""], rows)


def _verdict(value, ok):
    if value is None:
        return "not measured"
    return "met" if ok else "**not met**"


def scaleout_table(curves):
    """Markdown of `scaleout --format=json` output (two logs: staged, staged=false)."""
    if not curves:
        return "(not run)"
    counts = sorted({w["executors"] for c in curves for w in c["walls"]})
    walls = [{w["executors"]: w["wall_s"] for w in c["walls"]} for c in curves]
    header = ["executors"]
    for c in curves:
        header += ["%s: simulated wall" % c["name"], "speed-up"]
    if len(curves) == 2:
        header.append("%s ÷ %s" % (curves[0]["name"], curves[1]["name"]))
    rows = []
    for n in counts:
        row = [n]
        for w in walls:
            base = w.get(min(w)) if w else None
            row += [lib.fmt_s(w.get(n)), "%.2fx" % (base / w[n]) if w.get(n) else "–"]
        if len(curves) == 2 and walls[0].get(n) and walls[1].get(n):
            row.append("%.2fx" % (walls[0][n] / walls[1][n]))
        rows.append(row)
    lines = [lib.markdown_table(header, rows), ""]
    for c in curves:
        flat = ("flat (within 5 %% of the longest chain) from %d executors" % c["flat_at"]) if c.get("flat_at") else \
            "not flat within %d executors" % max(counts)
        lines.append("- %s: %d actions, %s of work, longest chain %s; %s." % (
            c["name"], c["actions"], lib.fmt_s(c["work_s"]), lib.fmt_s(c["longest_chain_s"]), flat))
        chain = " → ".join("%s%s %s" % (a["mnemonic"], " " + a["arch"] if a.get("arch", "-") != "-" else "",
                                        lib.fmt_s(a["s"])) for a in c.get("longest_chain", []))
        if chain:
            lines.append("  Longest chain: %s." % chain)
    return "\n".join(lines)


def _pair_medians(groups, shape, archs, fn, scenario="cold"):
    """(staged median, staged=false median) of fn over the shape's runs."""
    return tuple(_median(groups.get((shape, archs, v, scenario), []), fn) for v in ("bazel_staged", "bazel_unstaged"))


def _largest(runs, archs, variant="bazel_staged"):
    """The shape with the most sources (one target each) that has cold runs of variant at archs."""
    found = [s for s in shapes_at(runs, archs) if s[1] == s[2] and group(runs).get((s[0], archs, variant, "cold"))]
    return found[-1] if found else None


def costs_summary(runs, archs4, archs1):
    """Where staging still costs, in numbers from these results: markdown bullets (docs/performance/history.md, item 3)."""
    groups = group(runs)
    out = []
    for scenario, how in (("cold_nolog", "without the execution log"), ("cold", "with the execution log")):
        staged, unstaged = _pair_medians(groups, "n40", archs4, lambda r: r["wall_s"], scenario)
        if staged and unstaged:
            out.append("- **Cold, 40 files, 4 archs, %s:** staged %s against staged=false %s (%.2fx), %.0f ms more per source." % (
                how, lib.fmt_s(staged), lib.fmt_s(unstaged), staged / unstaged, 1000 * (staged - unstaged) / 40))
    for archs in (archs4, archs1):
        big = _largest(runs, archs)
        if not big:
            continue
        shape, n, _ = big
        label = "%s, %s" % (shape, archs_label(archs))
        server = _pair_medians(groups, shape, archs, lambda r: per_source(r, "cpu_server_s"))
        compilers = _pair_medians(groups, shape, archs, lambda r: per_source(r, "cpu_actions_s"))
        wall = _pair_medians(groups, shape, archs, lambda r: per_source(r, "wall_s"))
        if None not in wall:
            out.append("- **Per source (%s):** wall %s staged against %s staged=false; CPU of the compilers (sandboxed "
                       "tools) %s against %s; CPU of the Bazel server %s against %s." % (
                           label, _fmt_ms(wall[0]), _fmt_ms(wall[1]), _fmt_ms(compilers[0]), _fmt_ms(compilers[1]),
                           _fmt_ms(server[0]), _fmt_ms(server[1])))
        vruns = groups.get((shape, archs, "bazel_staged", "cold"), [])
        plan = _median(vruns, lambda r: r.get("stages", {}).get(stage_table.PLAN_MNEMONIC, {}).get("executed_s", 0.0) / n)
        share = _median(vruns, lambda r: plan_share(r.get("stages")))
        if share is not None:
            out.append("- **CudaPlan (%s):** %s of action time per source, %s of all action time." % (
                label, _fmt_ms(plan), lib.fmt_pct(share)))
        actions = _pair_medians(groups, shape, archs, lambda r: count_actions(r.get("stages")) / n)
        if None not in actions:
            out.append("- **Actions (%s):** %.1f per source staged, %.1f staged=false (each a sandbox and a cache entry)." % (
                label, actions[0], actions[1]))
        analysis = _pair_medians(groups, shape, archs, lambda r: r.get("analysis_s"))
        heap = _pair_medians(groups, shape, archs, lambda r: r.get("heap_analysis_mb"))
        if None not in analysis and None not in heap:
            out.append("- **Analysis and memory (%s, fresh server):** loading + analysis %s staged against %s; used heap "
                       "after analysis %s against %s." % (label, lib.fmt_s(analysis[0]), lib.fmt_s(analysis[1]),
                                                          _fmt_mb(heap[0]), _fmt_mb(heap[1])))
        null = _pair_medians(groups, shape, archs, lambda r: lib.median(r.get("null_s") or [None]))
        edit = _pair_medians(groups, shape, archs, lambda r: (r.get("edit") or {}).get("wall_s"))
        if None not in null and None not in edit:
            out.append("- **Null build and one-file edit (%s):** null %s staged against %s; one-file edit %s against %s." % (
                label, lib.fmt_s(null[0]), lib.fmt_s(null[1]), lib.fmt_s(edit[0]), lib.fmt_s(edit[1])))
        log_mb = _pair_medians(groups, shape, archs, lambda r: r.get("log_mb"))
        if None not in log_mb:
            out.append("- **Execution log (%s):** %s staged against %s staged=false (%.2f MB per source staged)." % (
                label, _fmt_mb(log_mb[0]), _fmt_mb(log_mb[1]), log_mb[0] / n))
    for archs in (archs4, archs1):
        small = _median(groups.get(("n50", archs, "bazel_staged", "cold"), []), lambda r: per_source(r, "wall_s"))
        big = _median(groups.get(("n1000", archs, "bazel_staged", "cold"), []), lambda r: per_source(r, "wall_s"))
        if small and big:
            out.append("- **Growth (%s):** staged wall per source %s at 50 sources, %s at 1000 (%.2fx)." % (
                archs_label(archs), _fmt_ms(small), _fmt_ms(big), big / small))
    return "\n".join(out)


def tables(doc, archs4, archs1, corpus=None):
    """The whole report (markdown) of a results document."""
    runs = doc.get("runs", [])
    m = doc.get("machine", {})
    out = [
        "<!-- Generated by bench/run scaling from results-scaling-%s.json. -->" % m.get("name", "?"),
        "",
        "Machine: %s cores (%s), Bazel --jobs=%s, %s. Started %s (`uptime`: %s); finished %s (`uptime`: %s)." % (
            m.get("cores"), m.get("cpu_model"), m.get("jobs"), m.get("bazel"), m.get("started"), m.get("uptime"),
            m.get("finished"), m.get("uptime_end")),
        "Cases: %s." % ", ".join("`%s`" % c for c in m.get("cases", [])),
        "",
        "### Targets (issue 15)",
        "",
        targets_table(runs, archs4, archs1, corpus),
        "",
        "### Where staging still costs (from these results)",
        "",
        costs_summary(runs, archs4, archs1) or "(not measured)",
        "",
    ]
    for archs in (archs4, archs1):
        if not any(r["archs"] == archs for r in runs):
            continue
        out += [
            "### Cold builds, %s" % archs, "", cold_table(runs, archs), "",
            "### Cost per source against the number of sources, %s: wall" % archs, "", flatness_table(runs, archs, "wall_s"), "",
            "### Cost per source against the number of sources, %s: CPU (compilers and Bazel server)" % archs, "",
            flatness_table(runs, archs, "cpu_s"), "",
            "### Bazel: analysis, memory, actions, null build, one-file edit, %s" % archs, "", bazel_table(runs, archs), "",
            "One-file edit, what the staged build ran:", "", edit_stages_text(runs, archs) or "(not measured)", "",
            "### Where the staged cold build's action time goes, %s" % archs, "", stage_share_table(runs, archs), "",
        ]
    so = doc.get("scaleout")
    if so:
        out += ["### Scale-out of the %s cold builds, %s (tools/cache_report:scaleout, simulated)" % (
            so.get("shape"), so.get("archs")), "", scaleout_table(so.get("curves")), ""]
    return "\n".join(out)
