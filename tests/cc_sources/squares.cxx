// A kernel in a .cxx file, compiled by one nvcc action (staged = False).
#include "tests/cc_sources/scale.h"

#ifdef __CUDACC__
__global__ void cxx_squares_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = float(i) * float(i);
}

int cxx_squares_on_device(float* x, int n) {
  cxx_squares_kernel<<<(n + 127) / 128, 128>>>(x, n);
  return 1;
}
#else
int cxx_squares_on_device(float*, int) { return 0; }
#endif
