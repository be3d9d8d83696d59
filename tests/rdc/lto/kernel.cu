#include "tests/rdc/lto/ops.cuh"
__global__ void lto_kernel(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lto_affine(lto_square(in[i]));
}

void launch(const float* in, float* out, int n) { lto_kernel<<<(n + 255) / 256, 256>>>(in, out, n); }
