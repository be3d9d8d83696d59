// libdevice functions whose argument reduction libnvvm alone compiles to other PTX than one
// cicc process (cicc_split.PLANNER_SPLITS): found by the fidelity fuzzer (tests/fidelity/fuzz).
#include <cuda_runtime.h>

__global__ void libdevice_math(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = (float)i / 17.0f + 0.25f;
    out[i] = sinf(x) + cosf(x) * powf(x, 1.5f);
  }
}

extern "C" int fidelity_libdevice_math(void) {
  const int n = 256;
  float* out;
  if (cudaMallocManaged(&out, n * sizeof(float)) != cudaSuccess) return 1;
  libdevice_math<<<n / 128, 128>>>(out, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  int bad = out[17] < 0.5f || out[17] > 2.0f;  // sin(1.25) + cos(1.25) * 1.25^1.5 = 1.39
  cudaFree(out);
  return bad;
}
