// Separate compilation: a kernel calls device functions defined in two other
// targets' .cu files (both named util.cu), and reads a device variable
// defined in one of them.
#include <cstdio>
#include <cuda_runtime.h>

#include "tests/rdc/geom/util.cuh"
#include "tests/rdc/mathlib/util.cuh"

__global__ void transform(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = rdc_offset(rdc_scale(in[i]));
}

#define CHECK(x)                                                             \
  do {                                                                       \
    cudaError_t e = (x);                                                     \
    if (e != cudaSuccess) {                                                  \
      printf("FAIL: %s: %s\n", #x, cudaGetErrorString(e));                   \
      return 1;                                                              \
    }                                                                        \
  } while (0)

int main() {
  const int n = 1000;
  float host[n], result[n];
  for (int i = 0; i < n; ++i) host[i] = float(i);
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(in, host, n * sizeof(float), cudaMemcpyHostToDevice));
  transform<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(result, out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int calls = 0;
  CHECK(cudaMemcpyFromSymbol(&calls, rdc_scale_calls, sizeof(int)));
  for (int i = 0; i < n; ++i) {
    if (result[i] != host[i] * 3.0f + 0.5f) {
      printf("FAIL: out[%d] = %f, want %f\n", i, result[i], host[i] * 3.0f + 0.5f);
      return 1;
    }
  }
  if (calls != n) {
    printf("FAIL: rdc_scale_calls = %d, want %d\n", calls, n);
    return 1;
  }
  printf("PASS: separate compilation across 3 targets (two util.cu), %d elements, rdc_scale_calls = %d\n", n, calls);
  return 0;
}
