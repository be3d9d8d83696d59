#include "saxpy.h"

namespace {

__host__ __device__ float axpy(float a, float x, float y) { return a * x + y; }

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = axpy(a, x[i], y[i]);
}

}  // namespace

float saxpy_host(float a, float x, float y) { return axpy(a, x, y); }

cudaError_t saxpy(int n, float a, const float* x, float* y) {
  float* dx = nullptr;
  float* dy = nullptr;
  size_t bytes = n * sizeof(float);
  cudaError_t err = cudaMalloc(&dx, bytes);
  if (err == cudaSuccess) err = cudaMalloc(&dy, bytes);
  if (err == cudaSuccess) err = cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  return err;
}
