// printf_kernel.cu: device-side printf from a kernel.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void printf_kernel(int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("fidelity printf_kernel: block %d thread %d value %d\n", blockIdx.x, threadIdx.x,
         i * i);
  out[i] = i * i;
}

extern "C" int fidelity_printf_kernel(void) {
  const int blocks = 2, threads = 4, n = blocks * threads;
  int* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) {
    std::printf("printf_kernel: cudaMalloc failed\n");
    return 1;
  }
  printf_kernel<<<blocks, threads>>>(d);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();  // flushes device printf buffer
  int h[n];
  if (err == cudaSuccess) err = cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (err != cudaSuccess) {
    std::printf("printf_kernel: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    if (h[i] != i * i) {
      std::printf("printf_kernel: out[%d] = %d, want %d\n", i, h[i], i * i);
      return 1;
    }
  }
  return 0;
}
