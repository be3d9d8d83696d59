// Launches the kernels of scale.cc, axpy.cpp and squares.cxx, and one of its
// own (this file is a .cc in a cuda_test's srcs: CUDA too), and checks every
// result on the host.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tests/cc_sources/scale.h"

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)
#define CUDA_CHECK(expr) CHECK((expr) == cudaSuccess)

__global__ void negate_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}

int main() {
  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = 0.3f * i;
  float *x = nullptr, *y = nullptr;
  CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));

  // scale.cc (cuda_library, staged): round(x * 2).
  CUDA_CHECK(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cc_scale_on_device(x, n, 2.0f) == 1);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> out(n);
  CUDA_CHECK(cudaMemcpy(out.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(out[i] == std::round(host[i] * 2.0f));

  // axpy.cpp (cuda_objects, archived by a cuda_library): y = 1 + 3 * x.
  std::vector<float> ones(n, 1.0f);
  CUDA_CHECK(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(y, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cpp_axpy_on_device(y, x, n, 3.0f) == 1);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(out.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(out[i] == 1.0f + 3.0f * host[i]);

  // squares.cxx (staged = False): x = i * i.
  CHECK(cxx_squares_on_device(x, n) == 1);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(out.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(out[i] == float(i) * float(i));

  // This file's own kernel.
  negate_kernel<<<(n + 127) / 128, 128>>>(x, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(out.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(out[i] == -float(i) * float(i));

  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  std::printf("PASS: kernels from .cc, .cpp and .cxx sources ran\n");
  return 0;
}
