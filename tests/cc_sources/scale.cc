// A kernel in a .cc file. It calls round() without including <cmath>: under
// nvcc the implicit cuda_runtime.h declares it, as it does for a .cu file.
#include "tests/cc_sources/scale.h"

CUDA_CALLABLE inline float scaled(float v, float a) { return round(v * a); }

#ifdef __CUDACC__
__global__ void cc_scale_kernel(float* x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = scaled(x[i], a);
}

int cc_scale_on_device(float* x, int n, float a) {
  cc_scale_kernel<<<(n + 127) / 128, 128>>>(x, n, a);
  return 1;
}
#else
int cc_scale_on_device(float*, int, float) { return 0; }
#endif
