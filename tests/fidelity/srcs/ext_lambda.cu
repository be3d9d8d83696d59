// ext_lambda.cu: REQUIRES nvcc --extended-lambda (an extended __device__ lambda
// defined in host code is passed to a templated kernel).
#include <cstdio>
#include <cuda_runtime.h>

template <typename F>
__global__ void transform_kernel(const int* in, int* out, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(in[i]);
}

template <typename F>
static cudaError_t launch_transform(const int* in, int* out, int n, F f) {
  transform_kernel<<<(n + 63) / 64, 64>>>(in, out, n, f);
  return cudaGetLastError();
}

extern "C" int fidelity_ext_lambda(void) {
  const int n = 200;
  const int mul = 3, add = 7;  // captured by value into the device lambda
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i - 50;
  int *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);
  auto f = [=] __device__(int x) { return x * mul + add; };
  cudaError_t err = launch_transform(d_in, d_out, n, f);
  int out[n];
  if (err == cudaSuccess) err = cudaMemcpy(out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  if (err != cudaSuccess) {
    std::printf("ext_lambda: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    if (out[i] != h[i] * mul + add) {
      std::printf("ext_lambda: out[%d] = %d, want %d\n", i, out[i], h[i] * mul + add);
      return 1;
    }
  }
  return 0;
}
