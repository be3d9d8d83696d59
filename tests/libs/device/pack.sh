#!/usr/bin/env bash
# Build-machine half of the library tests' GPU run (no Bazel on the GPU
# machine, and at most 64 MiB travels there per call, while cuDNN alone is
# 900 MB). After
#   tools/bazelw build //tests/libs:gpu_tests
# run from the repository root:
#   tests/libs/device/pack.sh OUT
# OUT gets, per test, the binary (a file) and its runfiles tree with every
# file except NVIDIA's shared libraries, whose runfiles paths, sonames and
# sha256s are listed in OUT/<test>.libs instead. tests/libs/device/run.sh
# puts the same sonames back from the GPU machine's own NVIDIA wheels (its
# PyTorch venv), says which versions it used, and runs each test.
set -euo pipefail
out="${1:?usage: tests/libs/device/pack.sh OUT}"
bin=bazel-bin/tests/libs
tests=(cublas_test cudnn_test cufft_test curand_test cusolver_test cusparse_test nccl_test nvtx_test driver_api_test nvrtc_test)
mkdir -p "$out"
for t in "${tests[@]}"; do
  [[ -x "$bin/$t" ]] || { echo "pack.sh: $bin/$t is missing: build //tests/libs:gpu_tests first" >&2; exit 1; }
  cp -f "$(readlink -f "$bin/$t")" "$out/$t"
  rm -rf "$out/$t.runfiles"
  : >"$out/$t.libs"
  (cd "$bin/$t.runfiles" && find -L . -type f -o -type l) | sort | while read -r rel; do
    rel="${rel#./}"
    src="$bin/$t.runfiles/$rel"
    if [[ "$rel" == */_solib_*/*.so* ]]; then
      echo "$rel $(basename "$rel") $(sha256sum "$(readlink -f "$src")" | cut -d' ' -f1)" >>"$out/$t.libs"
    else
      mkdir -p "$out/$t.runfiles/$(dirname "$rel")"
      cp -fL "$src" "$out/$t.runfiles/$rel"
    fi
  done
done
du -sh "$out"
