// Adds two vectors on the GPU. Built by the examples and by tests/toolchain.
#include <cuda_runtime.h>

#include "vector_add.h"

__global__ void vector_add_kernel(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

cudaError_t vector_add(const float* a, const float* b, float* out, int n) {
  float *da = nullptr, *db = nullptr, *dout = nullptr;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  cudaError_t err = cudaSuccess;
  if ((err = cudaMalloc(&da, bytes)) != cudaSuccess) return err;
  if ((err = cudaMalloc(&db, bytes)) != cudaSuccess) return err;
  if ((err = cudaMalloc(&dout, bytes)) != cudaSuccess) return err;
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  vector_add_kernel<<<(n + 255) / 256, 256>>>(da, db, dout, n);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  err = cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
  return err;
}
