"""Reads Bazel's execution log and reports reuse per CUDA stage and arch.

Input: the file written by `--execution_log_binary_file` (varint-delimited
SpawnExec protobuf messages, parsed with the generated code of execlog.proto)
or by `--execution_log_json_file` (a stream of JSON SpawnExec objects). Each
spawn is attributed to a stage (its mnemonic) and an arch, read from its
output paths with the stage table's path patterns (tools/nvcc_plan/stages.py):
per-arch outputs live under .../compute_XX/ (device preprocess, cicc),
.../compute_XX/sm_YY/ (ptxas) and .../_cuda_dlink/<target>/sm_YY/ (device link).
"""

import collections
import csv
import dataclasses
import datetime
import io
import json
import re

from tools.nvcc_plan import stages

_SECONDS = re.compile(r"^([0-9.]+)s$")

# Stages in pipeline order (the stage table's); other mnemonics are listed after them.
STAGE_ORDER = stages.pipeline_mnemonics()
# The compile's stages that produce device code, in pipeline order (nvcc's
# device preprocess, cicc, ptxas; clang's device compile): what "device
# stages" counts, in the headline and the benchmarks.
DEVICE_STAGES = [m for m in STAGE_ORDER if m in stages.device_mnemonics(stages.COMPILE_STAGES + stages.CLANG_STAGES)]
# The device link's (nvlink per arch): reported on their own line.
DEVICE_LINK_STAGES = [m for m in STAGE_ORDER if m in stages.device_mnemonics(stages.LINK_STAGES)]


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
    digest_bytes: int = 0  # its size: with the hash, the Action's digest on an executor
    args: list = dataclasses.field(default_factory=list)  # the command
    env: dict = dataclasses.field(default_factory=dict)  # its environment
    inputs: list = dataclasses.field(default_factory=list)
    input_sizes: list = dataclasses.field(default_factory=list)  # bytes, one per input
    output_files: int = 0  # the outputs it produced (0 where the log does not say)
    output_digests: dict = dataclasses.field(default_factory=dict)  # {output path: its content's digest}
    output_bytes: int = 0
    platform: dict = dataclasses.field(default_factory=dict)  # exec properties, e.g. {"Pool": "large"}
    queue_s: float = 0.0  # remote execution: time queued on the executor before a worker took it
    setup_s: float = 0.0  # remote execution: the worker staging the inputs before the command starts
    outputs_s: float = 0.0  # remote execution: the worker uploading the outputs after it ends
    start_s: float = None  # when it started to execute, seconds since the epoch (None: not logged)

    @property
    def worker_s(self):
        """The worker's own time around the command (remote execution)."""
        return self.setup_s + self.outputs_s

    @property
    def input_bytes(self):
        """The declared inputs' sizes summed: what a sandbox or an executor must materialise."""
        return sum(self.input_sizes)

    @property
    def arch(self):
        """The arch of a per-arch stage's action (its real arch if it has one), or "-", from the stage table."""
        found = "-"
        for path in self.outputs:
            arch = stages.arch_of_output(self.mnemonic, path)
            if arch.startswith("sm_"):
                return arch
            if found == "-":
                found = arch
        return found


def _seconds(value):
    m = _SECONDS.match(value or "")
    return float(m.group(1)) if m else 0.0


def _timestamp_s(value):
    """Seconds since the epoch of an RFC 3339 timestamp (protobuf's JSON form), or None."""
    if not value:
        return None
    m = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z$", value)
    if not m:
        return None
    whole = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    return whole.timestamp() + (float(m.group(2)) if m.group(2) else 0.0)


def read_log(path):
    """Returns the spawns of a binary or JSON execution log (detected from its first byte)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError as e:
        raise LogError("cannot read %s: %s" % (path, e.strerror))
    if head.lstrip()[:1] == b"{":
        return read_json_log(path)
    return read_binary_log(path)


def _varint(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data):
            raise LogError("truncated length prefix")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise LogError("bad length prefix")


def _duration_s(duration):
    return duration.seconds + duration.nanos / 1e9


def read_binary_log(path):
    """Returns the spawns of a `--execution_log_binary_file` log."""
    from google.protobuf.message import DecodeError

    from tools.cache_report import execlog_pb2

    with open(path, "rb") as f:
        data = f.read()
    spawns = []
    pos = 0
    while pos < len(data):
        try:
            size, start = _varint(data, pos)
        except LogError as e:
            raise LogError("%s: not a complete binary execution log (%s after %d spawns)" % (path, e, len(spawns)))
        end = start + size
        if end > len(data):
            raise LogError("%s: not a complete binary execution log (entry %d is cut off)" % (path, len(spawns) + 1))
        try:
            spawn = execlog_pb2.SpawnExec.FromString(data[start:end])
        except DecodeError as e:
            raise LogError("%s: entry %d is not a SpawnExec (%s): not a Bazel execution log?" % (path, len(spawns) + 1, e))
        if not spawn.command_args:
            raise LogError("%s: entry %d is not a SpawnExec (no command): not a Bazel execution log?" % (path, len(spawns) + 1))
        metrics = spawn.metrics
        wall = metrics.execution_wall_time if metrics.HasField("execution_wall_time") else metrics.total_time
        spawns.append(
            Spawn(
                mnemonic=spawn.mnemonic,
                outputs=list(spawn.listed_outputs),
                cache_hit=spawn.cache_hit,
                runner=spawn.runner,
                wall_s=_duration_s(wall),
                target=spawn.target_label,
                digest=spawn.digest.hash,
                digest_bytes=spawn.digest.size_bytes,
                args=list(spawn.command_args),
                env={v.name: v.value for v in spawn.environment_variables},
                inputs=[i.path for i in spawn.inputs],
                input_sizes=[i.digest.size_bytes for i in spawn.inputs],
                output_files=len(spawn.actual_outputs),
                output_digests={o.path: o.digest.hash for o in spawn.actual_outputs},
                output_bytes=sum(o.digest.size_bytes for o in spawn.actual_outputs),
                platform={p.name: p.value for p in spawn.platform.properties},
                queue_s=_duration_s(metrics.queue_time),
                setup_s=_duration_s(metrics.setup_time),
                outputs_s=_duration_s(metrics.process_outputs_time),
                start_s=(metrics.start_time.seconds + metrics.start_time.nanos / 1e9
                         if metrics.HasField("start_time") else None),
            )
        )
        pos = end
    return spawns


def _size(file_entry):
    """A JSON log's File entry's size (the int64 is a string in proto3's JSON)."""
    return int((file_entry.get("digest") or {}).get("sizeBytes", 0) or 0)


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
                digest_bytes=_size(obj),
                args=list(obj.get("commandArgs", [])),
                env={v.get("name", ""): v.get("value", "") for v in obj.get("environmentVariables", [])},
                inputs=[i.get("path", "") for i in obj.get("inputs", [])],
                input_sizes=[_size(i) for i in obj.get("inputs", [])],
                output_files=len(obj.get("actualOutputs", [])),
                output_digests={o.get("path", ""): (o.get("digest") or {}).get("hash", "") for o in obj.get("actualOutputs", [])},
                output_bytes=sum(_size(o) for o in obj.get("actualOutputs", [])),
                platform={p.get("name", ""): p.get("value", "") for p in (obj.get("platform") or {}).get("properties", [])},
                queue_s=_seconds(metrics.get("queueTime")),
                setup_s=_seconds(metrics.get("setupTime")),
                outputs_s=_seconds(metrics.get("processOutputsTime")),
                start_s=_timestamp_s(metrics.get("startTime")),
            )
        )
    return spawns


@dataclasses.dataclass
class Row:
    stage: str
    arch: str
    actions: int = 0
    cache_hits: int = 0
    remote_hits: int = 0
    disk_hits: int = 0
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
            if s.runner.startswith("disk"):
                row.disk_hits += 1
            else:
                row.remote_hits += 1
            row.saved_s += max((cost.get(p, 0.0) for p in s.outputs), default=0.0)
        else:
            row.executed += 1
            row.executed_s += s.wall_s

    def key(row):
        order = STAGE_ORDER.index(row.stage) if row.stage in STAGE_ORDER else len(STAGE_ORDER)
        return (order, row.stage, row.arch)

    return sorted(rows.values(), key=key)


def fraction_from_cache(rows, mnemonics):
    """Fraction of the time of the stages `mnemonics` that came from the cache (needs a baseline)."""
    saved = sum(r.saved_s for r in rows if r.stage in mnemonics)
    executed = sum(r.executed_s for r in rows if r.stage in mnemonics)
    return saved / (saved + executed) if saved + executed else 0.0


def device_fraction_from_cache(rows):
    """Fraction of the compile's device-stage time (DEVICE_STAGES) that came from the cache (needs a baseline)."""
    return fraction_from_cache(rows, DEVICE_STAGES)


def headline(rows):
    """The report's summary lines: each counts exactly the stages it names.

    The compile's device stages, then (if the build has any) the device links
    on their own line: a device link's key holds every linked source's code for
    its arch, so its reuse is another fact than the compile's.
    """
    lines = []
    for what, mnemonics in (("device stages", DEVICE_STAGES), ("device links", DEVICE_LINK_STAGES)):
        counted = [r for r in rows if r.stage in mnemonics]
        if what == "device links" and not counted:
            continue
        # Name the stages the build has (an nvcc build has no clang stage);
        # all of them when it has none.
        mnemonics = [m for m in mnemonics if any(r.stage == m for r in counted)] or mnemonics
        lines.append("%s (%s): %.1f %% of their time served from cache (%d of %d actions cache hits)" % (
            what, ", ".join(mnemonics), 100 * fraction_from_cache(rows, mnemonics),
            sum(r.cache_hits for r in counted), sum(r.actions for r in counted)))
    return "\n".join(lines) + "\n"


_COLUMNS = ["stage", "arch", "actions", "cache_hits", "remote_hits", "disk_hits", "executed", "executed_s", "saved_s"]


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
    # exec s / saved s: wall seconds of the actions that ran / that a cache hit
    # replaced (single-threaded compilers: about their CPU seconds).
    table = [["stage", "arch", "actions", "cache hits", "remote", "disk", "executed", "exec s", "saved s"]]

    def cells(r):
        return [str(r.actions), str(r.cache_hits), str(r.remote_hits), str(r.disk_hits), str(r.executed),
                "%.2f" % r.executed_s, "%.2f" % r.saved_s]

    for r in rows:
        table.append([r.stage, r.arch] + cells(r))
    total = Row("total", "")
    for r in rows:
        for field in ("actions", "cache_hits", "remote_hits", "disk_hits", "executed", "executed_s", "saved_s"):
            setattr(total, field, getattr(total, field) + getattr(r, field))
    table.append(["total", ""] + cells(total))
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = []
    for i, row in enumerate(table):
        lines.append("  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(row, widths))))
        if i == 0 or i == len(table) - 2:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def input_root(path):
    """Where an input comes from, coarsely: external/<repository>/<top directory>, the stage files, or a source tree."""
    parts = path.split("/")
    if parts[0] == "external" and len(parts) > 2:
        return "/".join(parts[:3]) if len(parts) > 3 else "/".join(parts[:2])
    if parts[0] == "bazel-out":
        if any(p.startswith("_cuda") for p in parts):
            return "bazel-out/.../_cuda* (stage files)"
        rest = parts[3:]  # bazel-out/<configuration>/bin/...
        if rest[:1] == ["external"] and len(rest) > 1:
            return "bazel-out/.../external/" + rest[1]
        return "bazel-out/.../" + (rest[0] if rest else "")
    return parts[0] if len(parts) > 1 else "(workspace root)"


@dataclasses.dataclass
class InputsRow:
    stage: str
    arch: str
    actions: int
    input_files: int  # per action, the median
    input_files_max: int
    input_mb: float  # per action, the median
    output_files: int  # per action, the median
    output_kb: float
    roots: list  # [(root, files per action (median))], most files first


def _median(values):
    values = sorted(values)
    return values[len(values) // 2] if values else 0


def inputs_table(spawns, only_cuda=True):
    """Per stage and arch: what each action declares as inputs (files, bytes, where from) and what it writes.

    The declared inputs are what a sandbox plants and an executor stages for
    the action, whether or not its command reads them.
    """
    groups = collections.OrderedDict()
    for spawn in spawns:
        if only_cuda and not spawn.mnemonic.startswith("Cuda"):
            continue
        groups.setdefault((spawn.mnemonic, spawn.arch), []).append(spawn)
    order = {m: i for i, m in enumerate(STAGE_ORDER)}
    rows = []
    for (stage, arch), group in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], len(order)), kv[0])):
        per_root = collections.defaultdict(list)
        for spawn in group:
            counts = collections.Counter(input_root(p) for p in spawn.inputs)
            for root in set(counts) | set(per_root):
                per_root[root].append(counts.get(root, 0))
        roots = sorted(((root, _median(counts + [0] * (len(group) - len(counts)))) for root, counts in per_root.items()),
                       key=lambda rc: (-rc[1], rc[0]))
        rows.append(InputsRow(
            stage=stage,
            arch=arch,
            actions=len(group),
            input_files=_median([len(s.inputs) for s in group]),
            input_files_max=max(len(s.inputs) for s in group),
            input_mb=_median([s.input_bytes for s in group]) / 1e6,
            output_files=_median([s.output_files for s in group]),
            output_kb=_median([s.output_bytes for s in group]) / 1e3,
            roots=[(root, n) for root, n in roots if n],
        ))
    return rows


def format_inputs_table(rows, fmt="table", roots=3):
    """The inputs table as text (the `roots` largest input roots per row), CSV or JSON."""
    if fmt == "json":
        return json.dumps([dataclasses.asdict(r) for r in rows], indent=2) + "\n"
    header = ["stage", "arch", "actions", "input files", "max", "input MB", "outputs", "output KB", "inputs from (files)"]
    table = [header]
    for r in rows:
        table.append([r.stage, r.arch, str(r.actions), str(r.input_files), str(r.input_files_max), "%.1f" % r.input_mb,
                      str(r.output_files), "%.1f" % r.output_kb,
                      "; ".join("%s %d" % rc for rc in r.roots[:roots])])
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(table)
        return out.getvalue()
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = []
    for i, row in enumerate(table):
        lines.append("  ".join(c.ljust(w) if j in (0, 1, 8) else c.rjust(w)
                               for j, (c, w) in enumerate(zip(row, widths))).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def stage_graph(spawns, target):
    """Graphviz dot of the CUDA stage actions of one target, linked by the files they pass."""
    mine = [s for s in spawns if s.mnemonic.startswith("Cuda") and (s.target == target or s.target.endswith(target))]
    if not mine:
        raise LogError("no CUDA stage actions of %s in the log (targets: %s)" % (
            target, ", ".join(sorted({s.target for s in spawns if s.mnemonic.startswith("Cuda")})) or "none"))
    producer = {}
    for i, s in enumerate(mine):
        for path in s.outputs:
            producer[path] = i
    lines = ["digraph cuda_stages {", "  rankdir=LR;", "  node [shape=box, fontname=monospace];"]
    for i, s in enumerate(mine):
        label = s.mnemonic + ("\\n" + s.arch if s.arch != "-" else "")
        style = ", style=filled, fillcolor=palegreen" if s.cache_hit else ""
        lines.append('  a%d [label="%s"%s];' % (i, label, style))
    edges = set()
    for i, s in enumerate(mine):
        for path in s.inputs:
            j = producer.get(path)
            if j is not None and j != i:
                edges.add((j, i, path.rsplit("/", 1)[-1]))
    for j, i, name in sorted(edges):
        lines.append('  a%d -> a%d [label="%s"];' % (j, i, name))
    lines.append("}")
    return "\n".join(lines) + "\n"
