#!/usr/bin/env bash
# Split compilation on the GPU machine (issue 42), without Bazel: heavy files
# alone and a mixed corpus at 4 archs, with nvcc -t 0, nvcc's fastest mode
# (-t 0 --split-compile=0, its --time giving each file's floor) and the staged
# runner with --split-compile=N (N threads in each cicc and ptxas, counted
# against its -j). The order alternates between repetitions. From the
# repository root, python3 with absl-py and bazel-runfiles importable:
#
#   bench/compile_bench/gpu_split_compile.sh OUT SOURCES SOURCES_ROOT [N] [PARTS]
#
# SOURCES: a list of other heavy sources (nvcc_runs.py --sources: one per line,
# `PATH [nvcc options]`; bench/compile_bench/heavy_sources.txt), each compiled
# alone ("heavy"), as are the corpus's heavy files ("ours": HEAVY below); the
# mixed corpus ("corpus", every file CORPUS_SOURCES lists (default SOURCES) and
# the corpus, 16 at a time). PARTS (default "heavy ours corpus"). REPS (default
# 2) repetitions each, BUDGET seconds at most per part (nvcc_runs.py
# --budget_s). Writes OUT/*.json and OUT/time/*.csv, prints one line per run,
# then bench/compile_bench/split_report.py's report.
set -u
out="${1:?usage: gpu_split_compile.sh OUT SOURCES SOURCES_ROOT [N] [PARTS]}"
sources="${2:?usage: gpu_split_compile.sh OUT SOURCES SOURCES_ROOT [N] [PARTS]}"
sources_root="${3:?usage: gpu_split_compile.sh OUT SOURCES SOURCES_ROOT [N] [PARTS]}"
split="${4:-4}"
parts=" ${5:-heavy ours corpus} "
archs="${ARCHS:-sm_80,sm_86,sm_90,compute_90}"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
reps="${REPS:-2}"
mkdir -p "$out/time"
run() { # run NAME SCOPES VARIANTS [extra nvcc_runs options...]
  local name="$1" scopes="$2" variants="$3" w
  shift 3
  w="$(mktemp -d)"
  python3 bench/compile_bench/nvcc_runs.py --nvcc="$nvcc" --archs="$archs" --variants="$variants" --scopes="$scopes" \
    --runner_split="$split" --time_dir="$out/time" --reps="$reps" --budget_s="${BUDGET:-0}" --out="$out/$name.json" \
    --workdir="$w" "$@" 2>&1 |
    grep -E "^rep|FAIL|Error" | sed "s/^/$name /"
  rm -rf "$w"
}
if [[ "$parts" == *" heavy "* ]]; then
  run files_heavy file nvcc_t0,nvcc_t0_split0,runner_split --sources="$sources" --sources_root="$sources_root"
fi
if [[ "$parts" == *" ours "* ]]; then
  run files_ours file nvcc_t0,nvcc_t0_split0,runner_split --files="${HEAVY:-gemm,cub_scan,thrust_ops}"
fi
if [[ "$parts" == *" corpus "* ]]; then
  run corpus corpus nvcc_t0_split0,runner,runner_split --sources="${CORPUS_SOURCES:-$sources}" \
    --sources_root="$sources_root" --add_corpus
fi
runs="$(ls "$out"/*.json | paste -sd,)"
python3 bench/compile_bench/split_report.py --runs="$runs" --time_dir="$out/time" | tee "$out/report.md"
