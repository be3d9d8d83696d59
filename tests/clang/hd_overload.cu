// hd_overload.cu: clang's __host__ / __device__ overloading (nvcc rejects this file:
// two functions of one signature, one per side). Each side calls its own.
#include <cuda_runtime.h>

__host__ int side() { return 1; }
__device__ int side() { return 2; }

// Host-device: resolves to the overload of the side it is compiled for.
__host__ __device__ int which_side() { return side(); }

__global__ void side_kernel(int* out) { *out = which_side(); }

extern "C" int hd_overload_host_side(void) { return which_side(); }

extern "C" int hd_overload_device_side(void) {
  int* d = nullptr;
  int h = 0;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) return -1;
  side_kernel<<<1, 1>>>(d);
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return h;
}
