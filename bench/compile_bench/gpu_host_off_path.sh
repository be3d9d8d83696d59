#!/usr/bin/env bash
# The host compile off the device path (docs/performance/history.md, "The GPU machine"),
# without Bazel: CCCL-heavy files alone and the whole corpus at 4 archs, with
# nvcc -t 0, the staged runner of another checkout (BEFORE: e.g. 45e737c, the
# last commit whose host compile waited for fatbinary) and this checkout's
# runner; the order alternates between the two repetitions. From the
# repository root, python3 with absl-py and bazel-runfiles importable:
#
#   bench/compile_bench/gpu_host_off_path.sh OUT BEFORE [PARTS]
#
# PARTS (default "1 2 corpus"): the repetitions of the files alone and the
# corpus run to do, e.g. "1" then "2 corpus" in two sessions of a lent machine.
#
# writes OUT/<run>.json (bench/compile_bench/nvcc_runs.py) and prints one line per run.
set -u
out="${1:?usage: gpu_host_off_path.sh OUT BEFORE_CHECKOUT}"
before_dir="${2:?usage: gpu_host_off_path.sh OUT BEFORE_CHECKOUT}"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
before="python3 $(cd "$before_dir" && pwd)/tools/nvcc_plan/nvcc_plan.py --run"
after="python3 $PWD/tools/nvcc_plan/nvcc_plan.py --run"
parts=" ${3:-1 2 corpus} "
mkdir -p "$out"
one() { # one OUTNAME VARIANT RUNNER SCOPE [FILES]
  local w
  w="$(mktemp -d)"
  python3 bench/compile_bench/nvcc_runs.py --nvcc="$nvcc" --variants="$2" --runner="$3" --scopes="$4" ${5:+--files=$5} \
    --reps=1 --out="$out/$1.json" --workdir="$w" 2>&1 | grep -E "^rep|FAIL|Error" | sed "s/^/$1 /"
  rm -rf "$w"
}
runner_of() { case "$1" in after) echo "$after" ;; *) echo "$before" ;; esac; }
variant_of() { case "$1" in t0) echo nvcc_t0 ;; *) echo runner ;; esac; }
for rep in 1 2; do
  [[ "$parts" == *" $rep "* ]] || continue
  for f in cub_scan thrust_ops cub_sort; do
    if ((rep == 1)); then order="t0 after before"; else order="before after t0"; fi
    for v in $order; do
      one "file_${f}_${v}_$rep" "$(variant_of $v)" "$(runner_of $v)" file "$f"
    done
  done
done
for v in t0 after before; do
  [[ "$parts" == *" corpus "* ]] || continue
  one "corpus_${v}" "$(variant_of $v)" "$(runner_of $v)" corpus
done
