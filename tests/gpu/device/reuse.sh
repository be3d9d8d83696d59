#!/usr/bin/env bash
# GPU-machine half of issue 14 (no Bazel there). Run from a checkout (or a copy
# of tools/detect_gpus/detect_gpus.py next to this script's repository layout):
#
#   tests/gpu/device/reuse.sh DIR
#
# DIR holds binaries built on the build machine with
#   tools/bazelw build //tests/gpu:mixed_abi_test //tests/gpu:cub_reduce_test \
#     --@rules_cuda_stages//cuda_rules:archs=sm_90
#   cp bazel-bin/tests/gpu/mixed_abi_test bazel-bin/tests/gpu/cub_reduce_test DIR/
# (cub_reduce_test is then built for sm_90 only, with the shipped set's
# __CUDA_ARCH_LIST__: a developer's one-arch build.)
#
# Checks: 1. --@rules_cuda_stages//cuda_rules:archs=native's detection finds
# this machine's GPU through the driver (libcuda.so.1), and nvidia-smi agrees;
# 2. three CUB instantiations with three different __CUDA_ARCH_LIST__ values in
# one binary all compute the right sum; 3. the pinned one-arch CUB test passes.
set -uo pipefail
dir="${1:?usage: tests/gpu/device/reuse.sh DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
status=0

echo "== detect_gpus (what archs=native compiles for)"
out="$(python3 "$repo/tools/detect_gpus/detect_gpus.py")" || status=1
echo "$out"
python3 - "$out" <<'PY' || status=1
import json, subprocess, sys
r = json.loads(sys.argv[1])
smi = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], stdout=subprocess.PIPE, text=True).stdout
want = sorted({"sm_" + c.strip().replace(".", "") for c in smi.split()}, key=lambda a: int(a[3:]))
ok = r["source"] == "driver" and r["archs"] == want
print("%s native: driver says %s, nvidia-smi says %s" % ("PASS" if ok else "FAIL", r["archs"], want))
sys.exit(0 if ok else 1)
PY

for t in mixed_abi_test cub_reduce_test; do
  echo "== $t"
  if [[ ! -x "$dir/$t" ]]; then echo "FAIL: $dir/$t missing"; status=1; continue; fi
  "$dir/$t" || { echo "FAIL: $t (exit status $?)"; status=1; }
done
exit "$status"
