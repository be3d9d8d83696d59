#include "solver/axpy_kernel.h"

namespace {

__global__ void axpy(int n, double a, const double* x, double* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

}  // namespace

extern "C" int solver_axpy_device(int n, double a, const double* x, double* y) {
  axpy<<<(n + 127) / 128, 128>>>(n, a, x, y);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
