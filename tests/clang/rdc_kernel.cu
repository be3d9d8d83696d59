// Relocatable device code compiled by clang (-fgpu-rdc): a kernel calling a
// __device__ function and reading a __device__ variable that another
// translation unit defines, and file-local device symbols of its own.
#include <cstdio>
#include <cuda_runtime.h>

extern __device__ float rdc_offset;
extern __device__ float rdc_twice(float x);

static __device__ int calls;

__device__ float rdc_affine(float x) {
  atomicAdd(&calls, 1);
  return rdc_twice(x) + rdc_offset;
}

__global__ void rdc_kernel(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = rdc_affine(in[i]);
}

void launch_rdc_kernel(float* out, const float* in, int n) {
  rdc_kernel<<<(n + 127) / 128, 128>>>(out, in, n);
}

// Runs rdc_kernel and checks it (//tests/clang:mixed_clang_nvcc_test, on a GPU): 0 when every value is right.
extern "C" int clang_rdc_affine(void) {
  const int n = 256;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = (float)i;
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, n * sizeof(float)) != cudaSuccess) return 1;
  cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice);
  launch_rdc_kernel(out, in, n);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaMemcpy(h, out, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  if (err != cudaSuccess) {
    std::printf("clang_rdc_affine: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    if (h[i] != 2.0f * i + 0.5f) {
      std::printf("clang_rdc_affine: out[%d] = %f, want %f\n", i, h[i], 2.0f * i + 0.5f);
      return 1;
    }
  }
  return 0;
}
