// Runs lto_kernel (3 .cu files, device-linked with or without LTO).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void lto_kernel(const float* in, float* out, int n);

void launch(const float* in, float* out, int n);

int main() {
  const int n = 4096;
  static float host[n], result[n];
  for (int i = 0; i < n; ++i) host[i] = float(i % 100) * 0.25f;
  float *in, *out;
  cudaMalloc(&in, sizeof(host));
  cudaMalloc(&out, sizeof(host));
  cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice);
  launch(in, out, n);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("FAIL: %s\n", cudaGetErrorString(e)); return 1; }
  cudaMemcpy(result, out, sizeof(host), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    float want = 2.0f * host[i] * host[i] + 1.0f;
    if (result[i] != want) { printf("FAIL: out[%d] = %f, want %f\n", i, result[i], want); return 1; }
  }
  printf("PASS: %s, %d elements\n", LTO_ON ? "device LTO (lto_80,lto_90)" : "no LTO (sm_80,sm_90)", n);
  return 0;
}
