"""The benchmark corpus: one cuda_library per source, and what kind of code each is.

bench/run reads this file too (it is a plain literal), so the plain-nvcc runs
compile every source with the same options as the Bazel builds.

kind:
  plain      kernels without templates or libraries
  templates  heavy C++ templates, many instantiations
  cccl       CUB / Thrust (CCCL puts __CUDA_ARCH_LIST__ into its ABI namespace)
  ptxas      dominated by ptxas (large unrolled kernels, many registers)
"""

CORPUS = {
    "elementwise": {"kind": "plain", "copts": ["-O3"]},
    "stencil": {"kind": "plain", "copts": ["-O3"]},
    "histogram": {"kind": "plain", "copts": ["-O3"]},
    "nbody": {"kind": "plain", "copts": ["-O3"]},
    "gemm": {"kind": "templates", "copts": ["-O3"]},
    "fft": {"kind": "templates", "copts": ["-O3"]},
    "expr": {"kind": "templates", "copts": ["-O3"]},
    "cub_scan": {"kind": "cccl", "copts": ["-O3"]},
    "cub_sort": {"kind": "cccl", "copts": ["-O3"]},
    "thrust_ops": {"kind": "cccl", "copts": ["-O3"]},
    "softmax": {"kind": "cccl", "copts": ["-O3"]},
    "modexp": {"kind": "ptxas", "copts": ["-O3"]},
}
