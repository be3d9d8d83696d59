// A second binary over //tests/rdc/mathlib: each binary device-links it itself.
#include <cstdio>
#include <cuda_runtime.h>

#include "tests/rdc/mathlib/util.cuh"

__global__ void scale_all(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = rdc_scale(v[i]);
}

int main() {
  const int n = 256;
  float host[n];
  for (int i = 0; i < n; ++i) host[i] = float(i);
  float* v;
  cudaMalloc(&v, sizeof(host));
  cudaMemcpy(v, host, sizeof(host), cudaMemcpyHostToDevice);
  scale_all<<<1, n>>>(v, n);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("FAIL: %s\n", cudaGetErrorString(e)); return 1; }
  cudaMemcpy(host, v, sizeof(host), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    if (host[i] != 3.0f * i) { printf("FAIL: v[%d] = %f\n", i, host[i]); return 1; }
  }
  printf("PASS: second binary over the same rdc library, %d elements\n", n);
  return 0;
}
