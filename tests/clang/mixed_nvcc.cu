// mixed_nvcc.cu: a kernel compiled by nvcc, linked with clang-compiled code (mixed_main.cc).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale_kernel(int n, float a, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= a;
}

extern "C" int mixed_nvcc_scale(void) {
  const int n = 512;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = (float)i;
  float* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) {
    std::printf("mixed_nvcc_scale: cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  scale_kernel<<<(n + 127) / 128, 128>>>(n, 3.0f, d);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (err != cudaSuccess) {
    std::printf("mixed_nvcc_scale: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    if (h[i] != 3.0f * i) {
      std::printf("mixed_nvcc_scale: y[%d] = %f, want %f\n", i, h[i], 3.0f * i);
      return 1;
    }
  }
  return 0;
}
