// The runner's test source: a template kernel, printf, and a variable in an
// anonymous namespace (its name in the PTX and cubins holds the module id).
#include <cstdio>

namespace {
__device__ int calls;
}

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
  if (i == 0) atomicAdd(&calls, 1);
}

__global__ void hello() { printf("hello from thread %d\n", static_cast<int>(threadIdx.x)); }

void launch_axpy(float a, const float* x, float* y, int n) {
  axpy<<<(n + 255) / 256, 256>>>(a, x, y, n);
  hello<<<1, 1>>>();
}
