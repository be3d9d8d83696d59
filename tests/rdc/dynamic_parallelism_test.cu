// Dynamic parallelism: a kernel launches kernels (needs rdc and cudadevrt).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void child(int* out, int base) { out[base + threadIdx.x] = base + threadIdx.x; }

__global__ void parent(int* out, int blocks) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < blocks) child<<<1, 32>>>(out, b * 32);
}

int main() {
  const int blocks = 64, n = blocks * 32;
  int* out;
  if (cudaMalloc(&out, n * sizeof(int)) != cudaSuccess) { printf("FAIL: cudaMalloc\n"); return 1; }
  cudaMemset(out, 0xff, n * sizeof(int));
  parent<<<2, 32>>>(out, blocks);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("FAIL: %s\n", cudaGetErrorString(e)); return 1; }
  int host[n];
  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    if (host[i] != i) { printf("FAIL: out[%d] = %d\n", i, host[i]); return 1; }
  }
  printf("PASS: dynamic parallelism, %d child grids launched from device wrote %d ints\n", blocks, n);
  return 0;
}
