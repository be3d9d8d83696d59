// reuse_kernel.cu: a plain __global__ kernel (saxpy) plus a host launcher; tests/e2e/clang_test.py edits its host code.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

static cudaError_t launch_saxpy(int n, float a, const float* d_x, float* d_y) {
  const int threads = 128;
  const int blocks = (n + threads - 1) / threads;
  saxpy_kernel<<<blocks, threads>>>(n, a, d_x, d_y);
  cudaError_t err = cudaGetLastError();
  return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

extern "C" int fidelity_plain_kernel(void) {
  const int n = 1000;
  const float a = 2.5f;
  float hx[n], hy[n];
  for (int i = 0; i < n; ++i) { hx[i] = (float)i; hy[i] = (float)(n - i); }
  float *dx = nullptr, *dy = nullptr;
  if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&dy, n * sizeof(float)) != cudaSuccess) {
    std::printf("plain_kernel: cudaMalloc failed\n");
    cudaFree(dx);
    return 1;
  }
  cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaError_t err = launch_saxpy(n, a, dx, dy);
  float out[n];
  if (err == cudaSuccess) err = cudaMemcpy(out, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  if (err != cudaSuccess) {
    std::printf("plain_kernel: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    float want = a * hx[i] + hy[i];
    if (out[i] != want) {
      std::printf("plain_kernel: y[%d] = %f, want %f\n", i, out[i], want);
      return 1;
    }
  }
  return 0;
}
