"""Where a build's action time goes, per mnemonic, from Bazel's JSON trace profile.

  bazel build --profile=/tmp/p.json.gz --noslim_profile //...
  python3 bench/compile_bench/profile_stages.py /tmp/p.json.gz [--top=20]

For each mnemonic: the number of actions, their total time (Bazel's "action
processing" events) and, inside those, the time of the process itself
(`subprocess.run`), of setting up the sandbox (`sandbox.createFileSystem`),
of building the input tree for the cache key (`MerkleTree.build`), of a
persistent worker's request (`... worker ...`), and what is left: Bazel's
own per-action work (input and output handling, cache lookups and uploads,
scheduling). docs/performance/history.md ("What the gap is made of") reads a cold
build of the scaling benchmark this way.

`--noslim_profile` matters: a slim profile merges short events, which hides
most of the per-action work this report is about. Standard library only.
"""

import argparse
import collections
import gzip
import json
import re
import statistics
import sys

# Events nested in an action that get their own column.
COLUMNS = (
    ("process", lambda name: name == "subprocess.run"),
    ("sandbox setup", lambda name: name == "sandbox.createFileSystem"),
    ("input tree", lambda name: name.startswith("MerkleTree.build")),
    ("worker", lambda name: re.match(r"^Worker #\d+ working$", name) is not None),
)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def _mnemonic(action):
    args = action.get("args") or {}
    if args.get("mnemonic"):
        return args["mnemonic"]
    # Older profiles name the action only by its progress message.
    return "(%s)" % re.split(r" of | @| //|:", action.get("name", "?"))[0][:40]


def breakdown(events, per_action=None):
    """{mnemonic: {"actions": n, "total": s, <column>: s, ..., "other": s}}, times in seconds.

    per_action: if a dict, it gets {mnemonic: [{"total": s, <column>: s, ...}, ...]}, one entry per action.
    """
    complete = [e for e in events if e.get("ph") == "X"]
    by_thread = collections.defaultdict(list)
    for e in complete:
        if e.get("cat") == "action processing":
            by_thread[e["tid"]].append(e)
    for actions in by_thread.values():
        actions.sort(key=lambda e: e["ts"])
    rows = collections.defaultdict(lambda: collections.defaultdict(float))
    each = {}  # id(action) -> its own times
    for actions in by_thread.values():
        for a in actions:
            row = rows[_mnemonic(a)]
            row["actions"] += 1
            row["total"] += a["dur"] / 1e6
            each[id(a)] = collections.defaultdict(float, total=a["dur"] / 1e6)
    for e in complete:
        column = next((c for c, match in COLUMNS if match(e.get("name", ""))), None)
        if column is None:
            continue
        for a in by_thread.get(e["tid"], ()):
            if a["ts"] <= e["ts"] and e["ts"] + e.get("dur", 0) <= a["ts"] + a["dur"]:
                rows[_mnemonic(a)][column] += e.get("dur", 0) / 1e6
                each[id(a)][column] += e.get("dur", 0) / 1e6
                break
    if per_action is not None:
        for actions in by_thread.values():
            for a in actions:
                per_action.setdefault(_mnemonic(a), []).append(dict(each[id(a)]))
    for row in rows.values():
        row["other"] = max(0.0, row["total"] - sum(row[c] for c, _ in COLUMNS))
    return {m: dict(r) for m, r in rows.items()}


def table(rows, top=0):
    names = ["actions", "total"] + [c for c, _ in COLUMNS] + ["other"]
    order = sorted(rows, key=lambda m: -rows[m]["total"])
    if top:
        order = order[:top]
    out = ["| mnemonic | " + " | ".join(n if n == "actions" else n + " (s)" for n in names) + " | per action (ms) |",
           "| --- |" + " ---: |" * (len(names) + 1)]
    for m in order + ["all"]:
        r = rows[m] if m != "all" else {n: sum(rows[x].get(n, 0) for x in rows) for n in names}
        cells = ["%d" % r.get("actions", 0)] + ["%.2f" % r.get(n, 0.0) for n in names[1:]]
        per = 1000 * r.get("total", 0.0) / r["actions"] if r.get("actions") else 0.0
        out.append("| %s | %s | %.1f |" % (m, " | ".join(cells), per))
    return "\n".join(out) + "\n"


def median_table(per_action, top=0):
    """Per mnemonic, the median action's time and its columns, in ms (the typical action, not the sum)."""
    names = ["total"] + [c for c, _ in COLUMNS]
    order = sorted(per_action, key=lambda m: -sum(a["total"] for a in per_action[m]))
    if top:
        order = order[:top]
    out = ["| mnemonic | actions | " + " | ".join("median " + n + " (ms)" for n in names) + " |",
           "| --- | ---: |" + " ---: |" * len(names)]
    for m in order:
        cells = ["%.0f" % (1000 * statistics.median(a.get(n, 0.0) for a in per_action[m])) for n in names]
        out.append("| %s | %d | %s |" % (m, len(per_action[m]), " | ".join(cells)))
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("profile", help="a Bazel --profile file (.json or .json.gz), written with --noslim_profile")
    p.add_argument("--top", type=int, default=0, help="only the N mnemonics with the most action time")
    p.add_argument("--median", action="store_true", help="per mnemonic, the median action's times (ms) instead of sums")
    opts = p.parse_args(argv)
    per_action = {}
    rows = breakdown(load(opts.profile), per_action)
    if not rows:
        print("profile_stages: %s has no action events (was it written by a build that ran actions?)" % opts.profile,
              file=sys.stderr)
        return 1
    sys.stdout.write(median_table(per_action, opts.top) if opts.median else table(rows, opts.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
