// The benchmark corpus: each source computes something real on the GPU and
// exports one self-test that runs its kernels on a small input and compares
// them with a host reference. Each returns 0 on success and prints a line.
#pragma once

#include <cstdio>

#include <cuda_runtime.h>

#define CORPUS_CHECK(call)                                                         \
  do {                                                                             \
    cudaError_t corpus_err_ = (call);                                              \
    if (corpus_err_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,          \
                   cudaGetErrorString(corpus_err_));                               \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

// Runs a CUB algorithm the usual two-call way (size query, then the work):
// f(temp, bytes) is called with temp = nullptr, then with that many bytes.
template <typename F>
cudaError_t corpus_with_temp(F&& f) {
  size_t bytes = 0;
  cudaError_t err = f(nullptr, bytes);
  if (err != cudaSuccess) return err;
  void* temp = nullptr;
  if ((err = cudaMalloc(&temp, bytes)) != cudaSuccess) return err;
  err = f(temp, bytes);
  cudaFree(temp);
  return err;
}

// Prints "PASS name: detail" or "FAIL name: detail" and returns 0 or 1.
inline int corpus_report(const char* name, bool ok, const char* detail) {
  std::printf("%s %s: %s\n", ok ? "PASS" : "FAIL", name, detail);
  return ok ? 0 : 1;
}

int corpus_elementwise();   // elementwise.cu: saxpy, axpby, clamp, polynomial
int corpus_stencil();       // stencil.cu: 2D Jacobi (shared-memory tiles), 3D 7-point
int corpus_histogram();     // histogram.cu: privatized 256-bin histogram, block scan
int corpus_nbody();         // nbody.cu: all-pairs gravity, shared-memory tiles
int corpus_gemm();          // gemm.cu: register-blocked GEMM templates, float/double
int corpus_fft();           // fft.cu: Stockham FFT templates, sizes 64..1024
int corpus_expr();          // expr.cu: expression templates, many instantiations
int corpus_cub_scan();      // cub_scan.cu: CUB reduce, scan, select
int corpus_cub_sort();      // cub_sort.cu: CUB radix sort, segmented reduce
int corpus_thrust();        // thrust_ops.cu: Thrust transform, sort, unique, scan
int corpus_softmax();       // softmax.cu: row softmax / layer norm with CUB warp/block reduce
int corpus_modexp();        // modexp.cu: Montgomery modular exponentiation (ptxas-heavy)
