#include <cuda_runtime.h>

#include "b.cuh"

__global__ void a_kernel(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = b_affine(data[i]);
}

// Calls b.cu's device function and reads its device variable across objects.
int a_run(float* data, int n) {
  float* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) return 1;
  cudaMemcpy(d, data, n * sizeof(float), cudaMemcpyHostToDevice);
  a_kernel<<<(n + 63) / 64, 64>>>(d, n);
  cudaError_t err = cudaMemcpy(data, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err == cudaSuccess ? 0 : 2;
}
