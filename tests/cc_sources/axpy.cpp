// A kernel in a .cpp file of a cuda_objects target.
#include "tests/cc_sources/scale.h"

#ifdef __CUDACC__
__global__ void cpp_axpy_kernel(float* y, const float* x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

int cpp_axpy_on_device(float* y, const float* x, int n, float a) {
  cpp_axpy_kernel<<<(n + 127) / 128, 128>>>(y, x, n, a);
  return 1;
}
#else
int cpp_axpy_on_device(float*, const float*, int, float) { return 0; }
#endif
