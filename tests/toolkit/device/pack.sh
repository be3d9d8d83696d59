#!/usr/bin/env bash
# Build-machine half of a toolkit's GPU run (no Bazel on the GPU machine).
# From the repository root:
#   tests/toolkit/device/pack.sh 12.4 OUT
# builds every GPU test of tests/gpu, tests/rdc and tests/toolkit with
#   tools/bazelw build --@rules_cuda_stages//cuda_rules:toolkit=12.4 <those tests>
# (for 12.4 with this repository's gcc 13 toolchain, tests/toolkit/host_cc.bzl)
# and copies each binary with its runfiles to OUT, with OUT/MANIFEST (the
# toolkit, each binary's sha256). tests/toolkit/device/run.sh OUT runs them.
set -euo pipefail
toolkit="${1:?usage: tests/toolkit/device/pack.sh TOOLKIT OUT}"
out="${2:?usage: tests/toolkit/device/pack.sh TOOLKIT OUT}"
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
mapfile -t targets < <(tools/bazelw query --output=label \
  'attr(tags, "requires-gpu", tests(//tests/gpu/... + //tests/rdc/... + //tests/toolkit/...))' 2>/dev/null)
((${#targets[@]} > 0)) || { echo "pack.sh: no GPU tests found" >&2; exit 1; }
tools/bazelw build "--@rules_cuda_stages//cuda_rules:toolkit=$toolkit" "${targets[@]}"
mkdir -p "$out"
echo "toolkit $toolkit" >"$out/MANIFEST"
for target in "${targets[@]}"; do
  rel="${target#//}"
  rel="${rel/://}"
  name="$(basename "$rel")"
  bin="bazel-bin/$rel"
  [[ -x "$bin" ]] || { echo "pack.sh: $bin is missing" >&2; exit 1; }
  rm -rf "$out/$name" "$out/$name.runfiles"
  cp -fL "$bin" "$out/$name"
  # Its runfiles, if they hold more than the binary itself (shared libraries);
  # the CUDA runtime and libstdc++ are linked statically.
  if [[ -d "$bin.runfiles" ]] && (cd "$bin.runfiles" && find -L . -type f ! -name MANIFEST ! -name _repo_mapping ! -path "./_main/$rel") | grep -q .; then
    cp -rL "$bin.runfiles" "$out/$name.runfiles"
  fi
  echo "binary $name $target $(sha256sum "$out/$name" | cut -d' ' -f1)" >>"$out/MANIFEST"
done
du -sh "$out"
