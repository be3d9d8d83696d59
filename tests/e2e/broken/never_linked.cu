// Relocatable device code linked into a binary with no device link of it.
#include <cuda_runtime.h>
__global__ void never_linked_kernel(int* out) { *out = 7; }
int run_never_linked(int* out) {
  never_linked_kernel<<<1, 1>>>(out);
  return static_cast<int>(cudaDeviceSynchronize());
}
