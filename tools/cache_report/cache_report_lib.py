"""Reads Bazel's execution log and reports reuse per CUDA stage and arch.

Input: the file written by `--execution_log_json_file` (a stream of JSON
SpawnExec objects). Each spawn is attributed to a stage (its mnemonic) and an
arch, read from its output paths: cuda_library writes per-arch outputs under
.../compute_XX/ (device preprocess, cicc) and .../compute_XX/sm_YY/ (ptxas).
"""

import collections
import csv
import dataclasses
import io
import json
import re

_REAL = re.compile(r"/(compute_[0-9]+[af]?)/(sm_[0-9]+[af]?)/")
_VIRTUAL = re.compile(r"/(compute_[0-9]+[af]?)/")
_SECONDS = re.compile(r"^([0-9.]+)s$")

# Stages in pipeline order; other mnemonics are listed after them.
STAGE_ORDER = [
    "CudaPlan",
    "CudaHostPreprocess",
    "CudaFrontend",
    "CudaDevicePreprocess",
    "CudaCicc",
    "CudaPtxas",
    "CudaFatbinary",
    "CudaHostCompile",
    "CudaCompile",
]
# The stages that produce device code (what "device-stage CPU" counts).
DEVICE_STAGES = {"CudaDevicePreprocess", "CudaCicc", "CudaPtxas"}


class LogError(ValueError):
    """The file is not a (complete) Bazel JSON execution log."""


@dataclasses.dataclass
class Spawn:
    mnemonic: str
    outputs: list
    cache_hit: bool
    runner: str
    wall_s: float
    target: str
    digest: str = ""  # the action key (Bazel's digest of the spawn)

    @property
    def arch(self):
        for path in self.outputs:
            m = _REAL.search(path)
            if m:
                return m.group(2)
        for path in self.outputs:
            m = _VIRTUAL.search(path)
            if m:
                return m.group(1)
        return "-"


def _seconds(value):
    m = _SECONDS.match(value or "")
    return float(m.group(1)) if m else 0.0


def read_json_log(path):
    """Returns the spawns of a `--execution_log_json_file` log."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise LogError(
            "%s is not a JSON execution log (binary? write it with --execution_log_json_file)" % path
        )
    decoder = json.JSONDecoder()
    spawns = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise LogError("%s: not a complete JSON execution log (%s, after %d spawns)" % (path, e.msg, len(spawns)))
        if not isinstance(obj, dict) or "commandArgs" not in obj:
            raise LogError("%s: entry %d is not a SpawnExec (no commandArgs)" % (path, len(spawns) + 1))
        metrics = obj.get("metrics", {})
        spawns.append(
            Spawn(
                mnemonic=obj.get("mnemonic", ""),
                outputs=[o if isinstance(o, str) else o.get("path", "") for o in obj.get("listedOutputs", [])],
                cache_hit=bool(obj.get("cacheHit") or obj.get("remoteCacheHit")),
                runner=obj.get("runner", ""),
                wall_s=_seconds(metrics.get("executionWallTime") or metrics.get("totalTime")),
                target=obj.get("targetLabel", ""),
                digest=(obj.get("digest") or {}).get("hash", ""),
            )
        )
    return spawns


@dataclasses.dataclass
class Row:
    stage: str
    arch: str
    actions: int = 0
    cache_hits: int = 0
    executed: int = 0
    executed_s: float = 0.0
    saved_s: float = 0.0


def summarize(spawns, baseline=None, only_cuda=True):
    """Rows per (stage, arch). `baseline`: spawns of an earlier build, whose
    execution times tell what each cache hit saved (matched by output path)."""
    cost = {}
    for s in baseline or []:
        if not s.cache_hit:
            for path in s.outputs:
                cost[path] = s.wall_s
    rows = collections.OrderedDict()
    for s in spawns:
        if only_cuda and not s.mnemonic.startswith("Cuda"):
            continue
        row = rows.setdefault((s.mnemonic, s.arch), Row(s.mnemonic, s.arch))
        row.actions += 1
        if s.cache_hit:
            row.cache_hits += 1
            row.saved_s += max((cost.get(p, 0.0) for p in s.outputs), default=0.0)
        else:
            row.executed += 1
            row.executed_s += s.wall_s

    def key(row):
        order = STAGE_ORDER.index(row.stage) if row.stage in STAGE_ORDER else len(STAGE_ORDER)
        return (order, row.stage, row.arch)

    return sorted(rows.values(), key=key)


def device_fraction_from_cache(rows):
    """Fraction of device-stage time that came from the cache (needs a baseline)."""
    saved = sum(r.saved_s for r in rows if r.stage in DEVICE_STAGES)
    executed = sum(r.executed_s for r in rows if r.stage in DEVICE_STAGES)
    return saved / (saved + executed) if saved + executed else 0.0


_COLUMNS = ["stage", "arch", "actions", "cache_hits", "executed", "executed_s", "saved_s"]


def format_rows(rows, fmt):
    if fmt == "json":
        return json.dumps([dataclasses.asdict(r) for r in rows], indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(_COLUMNS)
        for r in rows:
            writer.writerow([getattr(r, c) if not c.endswith("_s") else "%.3f" % getattr(r, c) for c in _COLUMNS])
        return out.getvalue()
    table = [["stage", "arch", "actions", "cache hits", "executed", "exec s", "saved s"]]
    for r in rows:
        table.append([r.stage, r.arch, str(r.actions), str(r.cache_hits), str(r.executed), "%.2f" % r.executed_s, "%.2f" % r.saved_s])
    total = Row("total", "")
    for r in rows:
        total.actions += r.actions
        total.cache_hits += r.cache_hits
        total.executed += r.executed
        total.executed_s += r.executed_s
        total.saved_s += r.saved_s
    table.append(["total", "", str(total.actions), str(total.cache_hits), str(total.executed), "%.2f" % total.executed_s, "%.2f" % total.saved_s])
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = []
    for i, row in enumerate(table):
        lines.append("  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(row, widths))))
        if i == 0 or i == len(table) - 2:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
