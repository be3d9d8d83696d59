#include <cstdio>
__device__ int dup_value();
__global__ void k(int* out) { *out = dup_value(); }
int main() {
  int* out;
  cudaMalloc(&out, sizeof(int));
  k<<<1, 1>>>(out);
  printf("%d\n", (int)cudaDeviceSynchronize());
  return 0;
}
