#include <cstdio>

__global__ void iota(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

int main() {
  const int n = 512;
  int* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return 1;
  iota<<<(n + 127) / 128, 128>>>(d, n);
  int h[n];
  if (cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  cudaFree(d);
  for (int i = 0; i < n; ++i) {
    if (h[i] != i) return 3;
  }
  std::printf("PASS: cuda_binary / cuda_test (rules_cuda's basic_macros), %d elements\n", n);
  return 0;
}
