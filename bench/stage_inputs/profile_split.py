"""Per stage: where a local action's time goes, from Bazel's --profile (linux-sandbox or a worker).

  tools/bazelw build @rules_cuda_stages_bench//:all --output_groups=cuda_objects --profile=/tmp/p.gz
  python3 bench/stage_inputs/profile_split.py /tmp/p.gz

Each action is found by its progress message (the stage table's `progress`,
tools/nvcc_plan/stages.py); the spans Bazel records inside it are summed per
part: the sandbox's inputs (sandbox.createFileSystem: directories, links to
the inputs), the command (subprocess.run), the outputs and the sandbox's
removal, the execution log's entry. Prints the medians per stage, in ms.
"""

import collections
import gzip
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from tools.nvcc_plan import stages  # noqa: E402

PARTS = collections.OrderedDict([
    ("sandbox inputs", ("sandbox.createFileSystem",)),
    ("command", ("subprocess.run",)),
    ("outputs + removal", ("sandbox.copyOutputs", "sandbox.delete", "sandbox.verifyPostCondition")),
    ("exec log", ("logSpawn",)),
])


def prefixes():
    """(progress message prefix, mnemonic) of every compile stage, longest first; CudaPlan's too."""
    out = [("Planning nvcc stages", stages.PLAN_MNEMONIC)]
    for stage in stages.COMPILE_STAGES:
        out.append((re.split(r"[%{]", stage.progress)[0].rstrip(), stage.mnemonic))
    return sorted(out, key=lambda p: -len(p[0]))


def split(events):
    """{mnemonic: {"action": [ms], part: [ms]}} from a profile's complete events."""
    events = [e for e in events if e.get("ph") == "X"]
    by_thread = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "general information":
            by_thread[e["tid"]].append(e)
    known = prefixes()
    out = collections.OrderedDict()
    for e in events:
        if e.get("cat") != "action processing":
            continue
        mnemonic = next((m for p, m in known if e.get("name", "").startswith(p)), None)
        if not mnemonic:
            continue
        start, end = e["ts"], e["ts"] + e["dur"]
        inside = [s for s in by_thread[e["tid"]] if s["ts"] >= start and s["ts"] + s["dur"] <= end]
        row = out.setdefault(mnemonic, collections.defaultdict(list))
        row["action"].append(e["dur"] / 1e3)
        for part, names in PARTS.items():
            row[part].append(sum(s["dur"] for s in inside if s["name"] in names) / 1e3)
    return out


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with gzip.open(argv[1]) if argv[1].endswith(".gz") else open(argv[1]) as f:
        profile = json.load(f)
    rows = split(profile["traceEvents"] if isinstance(profile, dict) else profile)
    order = [stages.PLAN_MNEMONIC] + [s.mnemonic for s in stages.COMPILE_STAGES]
    print("| stage | actions | action | " + " | ".join(PARTS) + " | other |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in PARTS) + " | ---: |")
    for mnemonic in sorted(rows, key=order.index):
        med = {k: statistics.median(v) for k, v in rows[mnemonic].items()}
        other = med["action"] - sum(med[p] for p in PARTS)
        print("| %s | %d | %.0f | %s | %.0f |" % (
            mnemonic, len(rows[mnemonic]["action"]), med["action"], " | ".join("%.0f" % med[p] for p in PARTS), other))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
