#!/usr/bin/env bash
# The GPU machine's part of docs/performance/history.md: a machine with a GPU, a CUDA
# toolkit and python3 (absl-py for the runner), but no Bazel. Run from the
# repository root:
#
#   bench/compile_bench/gpu_bench.sh OUT_DIR PHASE... [--budget_s=N]
#
# Phases:
#   test     the corpus compiled by the staged runner (nvcc_plan.py --run) for
#            the benchmark's archs, linked with corpus_test.cc, run on the GPU
#   corpus4  nvcc, nvcc -t 0 and the runner over the whole corpus, <cores> files
#            at a time, sm_75,sm_80,sm_86,sm_90,compute_90, 3 repetitions
#   corpus1  the same for sm_90, 2 repetitions
#   files    nvcc -t 0 and the runner one file at a time (alone), 4 archs, 1 repetition
#            (plain nvcc is single-threaded: its per-file times are those of corpus4,
#            where each file has a core of its own as long as files <= cores)
# Each phase writes OUT_DIR/<phase>.json (nvcc_runs.py) or OUT_DIR/test.txt;
# bench/compile_bench/report.py --gpu_results=... turns them into tables and plots.
set -euo pipefail
out="$1"
shift
budget=0
phases=()
for arg in "$@"; do
  case "$arg" in
    --budget_s=*) budget="${arg#*=}" ;;
    *) phases+=("$arg") ;;
  esac
done
mkdir -p "$out"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
archs4=sm_75,sm_80,sm_86,sm_90,compute_90
cores="$(nproc)"
{
  echo "== $(date -u +%FT%TZ) $(uptime)"
  "$nvcc" --version | tail -2
  gcc --version | head -1
  lscpu | grep -E 'Model name|^CPU\(s\)|Thread|MHz' || true
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
} >>"$out/machine.txt" 2>&1
runs() {  # runs NAME ARGS...
  local name="$1"
  shift
  python3 bench/compile_bench/nvcc_runs.py --nvcc="$nvcc" --jobs="$cores" --runner_jobs="$cores" \
    --budget_s="$budget" --out="$out/$name.json" --workdir="$(mktemp -d)" "$@"
}
for phase in "${phases[@]}"; do
  echo "== $phase $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >&2
  case "$phase" in
    test)
      dir="$(mktemp -d)"
      python3 - "$nvcc" "$archs4" "$dir" "$cores" >"$out/test.txt" 2>&1 <<'PY'
import concurrent.futures, subprocess, sys
sys.path.insert(0, "bench/compile_bench")
import nvcc_runs
nvcc, archs, out, cores = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
corpus = nvcc_runs.read_corpus("bench/corpus/corpus.bzl")
def compile_one(name):
    args = nvcc_runs.nvcc_args("bench/corpus", name, corpus[name], archs, None) + ["-o", "%s/%s.o" % (out, name)]
    cmd = [sys.executable, "tools/nvcc_plan/nvcc_plan.py", "--run", "-j", "4", "--nvcc=" + nvcc, "--"] + args
    return name, subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
with concurrent.futures.ThreadPoolExecutor(cores) as pool:
    for name, proc in pool.map(compile_one, corpus):
        print("runner %s: exit %d %s" % (name, proc.returncode, proc.stdout[-1500:] if proc.returncode else ""))
PY
      "$nvcc" -o "$dir/corpus_test" "$dir"/*.o bench/corpus/corpus_test.cc -Ibench/corpus >>"$out/test.txt" 2>&1
      status=0
      "$dir/corpus_test" >>"$out/test.txt" 2>&1 || status=$?
      echo "corpus_test: exit $status" >>"$out/test.txt"
      ;;
    corpus4) runs corpus4 --scopes=corpus --archs="$archs4" --reps=3 --variants=nvcc,nvcc_t0,runner ;;
    corpus1) runs corpus1 --scopes=corpus --archs=sm_90 --reps=2 --variants=nvcc,nvcc_t0,runner ;;
    files) runs files --scopes=file --archs="$archs4" --reps=1 --variants=nvcc_t0,runner ;;
    *) echo "unknown phase $phase" >&2; exit 2 ;;
  esac
done
