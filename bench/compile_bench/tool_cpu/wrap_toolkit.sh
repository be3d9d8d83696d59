#!/bin/sh
# A copy of a CUDA toolkit whose tools (cudafe++, cicc, ptxas, fatbinary,
# nvlink) and host compiler (OUT/ccbin/gcc, g++: pass -ccbin OUT/ccbin) append
# "<tool> <wall> <user> <sys> <args...>" to $STEP_LOG after each run (steptime.c:
# wait4 of the tool and its children), so nvcc's steps and the staged
# runner's stages are timed by the same timer. Everything else is a symbolic
# link to the real toolkit.
#   bench/compile_bench/tool_cpu/wrap_toolkit.sh REAL_TOOLKIT OUT_DIR
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
real="$(cd "$1" && pwd)"
out="$2"
rm -rf "$out"
mkdir -p "$out/bin" "$out/nvvm/bin" "$out/ccbin"
out="$(cd "$out" && pwd)"
${CC:-cc} -O2 -o "$out/steptime" "$here/steptime.c"
for d in include lib lib64 targets cccl; do if [ -e "$real/$d" ]; then ln -s "$real/$d" "$out/$d"; fi; done
for d in "$real"/nvvm/*; do [ "$(basename "$d")" = bin ] || ln -s "$d" "$out/nvvm/"; done
cp "$real/bin/nvcc" "$real/bin/nvcc.profile" "$out/bin/"
ln -s "$real/bin/crt" "$out/bin/crt"
if [ -e "$real/bin/bin2c" ]; then ln -s "$real/bin/bin2c" "$out/bin/bin2c"; fi
wrap() { # TAG REAL OUT
  printf '#!/bin/sh\nexec %s "${STEP_LOG:-/dev/null}" %s %s "$@"\n' "$out/steptime" "$1" "$2" >"$3"
  chmod +x "$3"
}
for t in cudafe++ ptxas fatbinary nvlink; do wrap "$t" "$real/bin/$t" "$out/bin/$t"; done
wrap cicc "$real/nvvm/bin/cicc" "$out/nvvm/bin/cicc"
wrap gcc "$(command -v "${HOST_CC:-gcc}")" "$out/ccbin/gcc"
wrap g++ "$(command -v "${HOST_CXX:-g++}")" "$out/ccbin/g++"
