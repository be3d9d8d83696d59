/* The GPU path in plain C: the CUDA runtime's C API, and the kernel's wrapper. */
#include <cuda_runtime_api.h>

#include "solver/axpy_kernel.h"

int solver_axpy_gpu(int n, double a, const double* x, double* y) {
  double* dx = 0;
  double* dy = 0;
  size_t bytes = (size_t)n * sizeof(double);
  int failed = cudaMalloc((void**)&dx, bytes) != cudaSuccess || cudaMalloc((void**)&dy, bytes) != cudaSuccess ||
               cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
               cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice) != cudaSuccess || solver_axpy_device(n, a, dx, dy) != 0 ||
               cudaDeviceSynchronize() != cudaSuccess ||
               cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost) != cudaSuccess;
  cudaFree(dx);
  cudaFree(dy);
  return failed;
}
