// The C++ toolchain's flags in the stages of a .cu file (tests/cc_toolchain).
#include <cassert>
#include <cstdio>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(n >= 0);  // device code sees NDEBUG as host code does
  if (i < n) x[i] *= a;
}

void launch_scale(float* x, float a, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, a, n);
  std::printf("launched %d\n", n);
}
