#!/usr/bin/env bash
# The GPU machine's half (see pack.sh): from a checkout,
#
#   dev/device/run.sh PACK.tar.xz|DIR [NAME_FILTER]
#
# For each packed test (whose name contains NAME_FILTER, if given): puts
# NVIDIA's shared libraries back into its runfiles tree at the paths the build
# gave them, taken by soname from this machine's NVIDIA wheels (python3's
# site-packages/nvidia/*/lib, e.g. PyTorch's) or, failing that, its CUDA
# install ($CUDA_HOME, default /usr/local/cuda: lib64), saying whether each is the very
# file the build linked (sha256) or another build with the same soname; then
# runs the test as `bazel test` would (in its runfiles, with its args,
# TEST_SRCDIR set, no LD_LIBRARY_PATH) and prints its output. Exit status: 0 if all passed.
set -uo pipefail
src="${1:?usage: dev/device/run.sh PACK.tar.xz|DIR [NAME_FILTER]}"
filter="${2:-}"
if [[ -f "$src" ]]; then
  dir="$(mktemp -d)"
  tar -C "$dir" -xJf "$src"
  dir="$dir/$(ls "$dir")"
else
  dir="$src"
fi
dir="$(cd "$dir" && pwd)"
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
site="${NVIDIA_SITE:-$(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null)}"
status=0 passed=0 failed=0
echo "== $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null | head -n1); $(ldd --version | head -n1)"
for t in "$dir"/*/; do
  t="${t%/}"
  name="$(basename "$t")"
  [[ -z "$filter" || "$name" == *"$filter"* ]] || continue
  bin="$(find "$t" -maxdepth 1 -type f -perm -u+x | head -n1)"
  base="$(basename "$bin")"
  echo "== $(cat "$t/label")"
  while read -r rel soname sha; do
    [[ -n "$rel" ]] || continue
    dest="$t/$base.runfiles/$rel"
    mkdir -p "$(dirname "$dest")"
    found=""
    for s in $site; do
      found="$(ls "$s"/nvidia/*/lib/"$soname" 2>/dev/null | head -n1)" && [[ -n "$found" ]] && break
    done
    if [[ -z "$found" && -e "$cuda_home/lib64/$soname" ]]; then
      found="$(readlink -f "$cuda_home/lib64/$soname")"
    fi
    if [[ -z "$found" ]]; then
      echo "   $soname: not on this machine (no site-packages/nvidia/*/lib/$soname, no $cuda_home/lib64/$soname)"
      continue
    fi
    ln -sfn "$found" "$dest"
    if [[ "$(sha256sum "$found" | cut -d' ' -f1)" == "$sha" ]]; then
      echo "   $soname: $found (the file the build linked)"
    else
      echo "   $soname: $found (same soname, another build)"
    fi
  done <"$t/libs"
  runfiles="$t/$base.runfiles"
  args=()
  [[ -f "$t/args" ]] && mapfile -t args <"$t/args"
  if (cd "$runfiles/_main" 2>/dev/null || cd "$runfiles"; env -u LD_LIBRARY_PATH TEST_SRCDIR="$runfiles" RUNFILES_DIR="$runfiles" TEST_TMPDIR="$(mktemp -d)" "$bin" "${args[@]}"); then
    echo "PASS: $name"
    passed=$((passed + 1))
  else
    echo "FAIL: $name (exit status $?)"
    failed=$((failed + 1))
    status=1
  fi
done
echo "$passed passed, $failed failed"
exit "$status"
