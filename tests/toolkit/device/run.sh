#!/usr/bin/env bash
# GPU-machine half (see pack.sh): runs every binary of DIR and prints its output.
#   tests/toolkit/device/run.sh DIR
# Each binary runs from DIR with no LD_LIBRARY_PATH (the CUDA runtime is linked
# statically; the driver's libcuda.so.1 is the machine's). runtime_version_test
# must report the runtime of the toolkit DIR/MANIFEST names.
set -uo pipefail
dir="${1:?usage: tests/toolkit/device/run.sh DIR}"
toolkit="$(awk '$1 == "toolkit" { print $2 }' "$dir/MANIFEST")"
echo "binaries built with CUDA $toolkit; driver: $(nvidia-smi --query-gpu=driver_version,name --format=csv,noheader 2>/dev/null | head -n1)"
passed=0 failed=0
while read -r kind name target sha; do
  [[ "$kind" == binary ]] || continue
  echo "== $target"
  if [[ "$(sha256sum "$dir/$name" | cut -d' ' -f1)" != "$sha" ]]; then
    echo "FAIL: $name is not the packed binary"
    failed=$((failed + 1))
    continue
  fi
  log="$(mktemp)"
  (cd "$dir" && env -u LD_LIBRARY_PATH TEST_SRCDIR="$PWD/$name.runfiles" "./$name") >"$log" 2>&1
  rc=$?
  cat "$log"
  if ((rc == 0)) && [[ "$name" == runtime_version_test ]] && ! grep -q "^CUDA runtime $toolkit (compiled with $toolkit)" "$log"; then
    echo "FAIL: $name does not report the CUDA $toolkit runtime"
    rc=1
  fi
  rm -f "$log"
  if ((rc == 0)); then passed=$((passed + 1)); else echo "FAIL: $name (exit status $rc)"; failed=$((failed + 1)); fi
done <"$dir/MANIFEST"
echo "CUDA $toolkit: $passed passed, $failed failed"
((failed == 0))
