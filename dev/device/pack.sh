#!/usr/bin/env bash
# The build machine's half of running GPU tests on a machine without Bazel
# (docs/gpu_machine.md). From the repository root:
#
#   dev/device/pack.sh OUT [BAZEL_FLAG...] [LABEL...]
#
# (or from a nested module of the checkout, e.g. tests/rules_cuda_compat/consumer,
# with that module's labels) builds the LABELs (default: every test tagged
# requires-gpu in the workspace it runs in, and, from the repository root, in
# the consumer module) with the BAZEL_FLAGs (arguments starting with --), and
# writes OUT.tar.xz holding, per test, OUT/<label as a file name>/ with the
# test binary, its runfiles tree and its args (one per line, as `bazel test`
# expands them). NVIDIA's shared libraries (cuDNN alone is
# 900 MB) stay behind: each is listed in <name>/libs as its runfiles path,
# soname and sha256, and dev/device/run.sh takes the same sonames from the
# GPU machine's own NVIDIA wheels.
set -euo pipefail
out="${1:?usage: dev/device/pack.sh OUT [BAZEL_FLAG...] [LABEL...]}"
shift
flags=() labels=()
for a in "$@"; do
  if [[ "$a" == --* ]]; then flags+=("$a"); else labels+=("$a"); fi
done
# This checkout's bazelw, wherever in the checkout this runs: Bazel builds the
# workspace of the current directory (the root module or a nested one).
checkout="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
bazel="$checkout/tools/bazelw"
workspace="$("$bazel" info workspace 2>/dev/null)" || { echo "pack.sh: not in a Bazel workspace of $checkout ($(pwd))" >&2; exit 1; }
if ((${#labels[@]} == 0)); then
  universe='//...'
  [[ "$workspace" == "$checkout" ]] && universe='//... + @rules_cuda_compat_consumer//...'
  mapfile -t labels < <("$bazel" query "attr(tags, \"requires-gpu\", tests($universe))" 2>/dev/null)
  ((${#labels[@]} > 0)) || { echo "pack.sh: no test tagged requires-gpu in $workspace" >&2; exit 1; }
fi
"$bazel" build "${flags[@]}" "${labels[@]}" >&2
rm -rf "$out" "$out.tar.xz"
mkdir -p "$out"
for label in "${labels[@]}"; do
  bin="$("$bazel" cquery "${flags[@]}" "$label" --output=files 2>/dev/null | head -n1)"
  [[ "$bin" == /* ]] || bin="$workspace/$bin"
  [[ -x "$bin" && -d "$bin.runfiles" ]] || { echo "pack.sh: $label has no executable with runfiles ($bin)" >&2; exit 1; }
  name="$(echo "$label" | sed -e 's/^@*//' -e 's|^//||' -e 's|[/:]|_|g' -e 's|~||g')"
  base="$(basename "$bin")"
  dest="$out/$name"
  mkdir -p "$dest"
  cp -f "$(readlink -f "$bin")" "$dest/$base"
  echo "$label" >"$dest/label"
  # The test's args as `bazel test` passes them ($(rlocationpath ...)
  # expanded): the TestRunner action's command line after the binary.
  "$bazel" aquery "${flags[@]}" "mnemonic(\"TestRunner\", $label)" --output=jsonproto 2>/dev/null |
    python3 -c 'import json, sys; [print(a) for a in json.load(sys.stdin)["actions"][0]["arguments"][2:]]' >"$dest/args"
  : >"$dest/libs"
  (cd "$bin.runfiles" && find -L . -type f) | sort | while read -r rel; do
    rel="${rel#./}"
    src="$bin.runfiles/$rel"
    # A shared library of the cuda extension's repositories (NVIDIA's wheels).
    if [[ "$rel" == */_solib_*/*.so* ]] && readlink -f "$src" | grep -q '/external/[^/]*[~+]cuda[~+]'; then
      echo "$rel $(basename "$rel") $(sha256sum "$(readlink -f "$src")" | cut -d' ' -f1)" >>"$dest/libs"
    else
      mkdir -p "$dest/$base.runfiles/$(dirname "$rel")"
      cp -fL "$src" "$dest/$base.runfiles/$rel"
    fi
  done
done
tar -C "$(dirname "$out")" -cJf "$out.tar.xz" "$(basename "$out")"
echo "pack.sh: ${#labels[@]} tests in $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1); $(du -sh "$out" | cut -f1) unpacked)" >&2
