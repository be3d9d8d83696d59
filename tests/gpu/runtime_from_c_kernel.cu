// The device half of runtime_from_c_test: a kernel behind a C function.
#include "tests/gpu/runtime_from_c.h"

namespace {

__global__ void scale(float* data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

}  // namespace

extern "C" int scale_on_device(float* device_data, int n, float factor) {
  scale<<<(n + 255) / 256, 256>>>(device_data, n, factor);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
