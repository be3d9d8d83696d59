// globals.cu: __constant__ arrays and __device__ globals, accessed from host
// with cudaMemcpyToSymbol / cudaMemcpyFromSymbol.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kN = 16;
__constant__ float c_coeffs[kN];
__constant__ int c_offset;
__device__ float g_result[kN];
__device__ int g_counter;

__global__ void apply_coeffs_kernel() {
  int i = threadIdx.x;
  if (i < kN) {
    g_result[i] = c_coeffs[i] * (float)(i + c_offset);
    atomicAdd(&g_counter, 1);
  }
}

extern "C" int fidelity_globals(void) {
  float coeffs[kN];
  for (int i = 0; i < kN; ++i) coeffs[i] = 0.5f * (float)i;
  const int offset = 3, zero = 0;
  cudaError_t err = cudaMemcpyToSymbol(c_coeffs, coeffs, sizeof(coeffs));
  if (err == cudaSuccess) err = cudaMemcpyToSymbol(c_offset, &offset, sizeof(int));
  if (err == cudaSuccess) err = cudaMemcpyToSymbol(g_counter, &zero, sizeof(int));
  if (err == cudaSuccess) {
    apply_coeffs_kernel<<<1, 32>>>();
    err = cudaGetLastError();
  }
  float result[kN];
  int counter = -1;
  if (err == cudaSuccess) err = cudaMemcpyFromSymbol(result, g_result, sizeof(result));
  if (err == cudaSuccess) err = cudaMemcpyFromSymbol(&counter, g_counter, sizeof(int));
  if (err != cudaSuccess) {
    std::printf("globals: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  if (counter != kN) {
    std::printf("globals: g_counter = %d, want %d\n", counter, kN);
    return 1;
  }
  for (int i = 0; i < kN; ++i) {
    float want = coeffs[i] * (float)(i + offset);
    if (result[i] != want) {
      std::printf("globals: g_result[%d] = %f, want %f\n", i, result[i], want);
      return 1;
    }
  }
  return 0;
}
