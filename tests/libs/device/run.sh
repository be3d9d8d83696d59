#!/usr/bin/env bash
# GPU-machine half of the library tests (see pack.sh): run from a checkout,
#   tests/libs/device/run.sh DIR
# For each test in DIR: puts NVIDIA's shared libraries into its runfiles tree
# at the paths the build gave them (DIR/<test>.libs), taken from this
# machine's NVIDIA wheels (the site-packages/nvidia/*/lib of python3, e.g.
# PyTorch's cu13 wheels) by soname, and says for each whether it is the very
# file the build linked (sha256) or another build with the same soname; then
# runs the test with no LD_LIBRARY_PATH and prints its output.
set -uo pipefail
dir="${1:?usage: tests/libs/device/run.sh DIR}"
site="${NVIDIA_SITE:-$(python3 -c 'import site; print(" ".join(site.getsitepackages()))')}"
status=0 passed=0 failed=0
for libs in "$dir"/*.libs; do
  t="$(basename "$libs" .libs)"
  echo "== $t"
  while read -r rel soname sha; do
    [[ -n "$rel" ]] || continue
    dest="$dir/$t.runfiles/$rel"
    mkdir -p "$(dirname "$dest")"
    found=""
    for s in $site; do
      found="$(ls "$s"/nvidia/*/lib/"$soname" 2>/dev/null | head -n1)" && [[ -n "$found" ]] && break
    done
    if [[ -z "$found" ]]; then
      echo "   $soname: not on this machine (no site-packages/nvidia/*/lib/$soname)"
      continue
    fi
    ln -sfn "$found" "$dest"
    if [[ "$(sha256sum "$found" | cut -d' ' -f1)" == "$sha" ]]; then
      echo "   $soname: $found (the file the build linked)"
    else
      echo "   $soname: $found (same soname, another build: $(basename "$(dirname "$(dirname "$(dirname "$found")")")")"
    fi
  done <"$libs"
  if (cd "$dir" && env -u LD_LIBRARY_PATH "./$t"); then
    passed=$((passed + 1))
  else
    echo "FAIL: $t (exit status $?)"
    failed=$((failed + 1))
    status=1
  fi
done
echo "$passed passed, $failed failed"
exit "$status"
