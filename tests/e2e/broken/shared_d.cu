#include <cuda_runtime.h>
__device__ int shared_twice(int x);
__global__ void d_kernel(int* out) { *out = shared_twice(3); }
int run_d(int* out) {
  d_kernel<<<1, 1>>>(out);
  return static_cast<int>(cudaDeviceSynchronize());
}
