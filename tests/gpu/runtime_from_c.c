/* Plain C calling the CUDA runtime: in a cc_test, Bazel links this library as a
   shared object of its own, so the runtime must be one it can call (the shared
   libcudart: the static one's symbols are hidden from shared objects). */
#include "tests/gpu/runtime_from_c.h"

#include <cuda_runtime_api.h>

int scale_on_gpu(float* host_data, int n, float factor) {
  float* device_data = 0;
  size_t bytes = (size_t)n * sizeof(float);
  cudaError_t err = cudaMalloc((void**)&device_data, bytes);
  if (err == cudaSuccess) err = cudaMemcpy(device_data, host_data, bytes, cudaMemcpyHostToDevice);
  if (err == cudaSuccess && scale_on_device(device_data, n, factor) != 0) err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err == cudaSuccess) err = cudaMemcpy(host_data, device_data, bytes, cudaMemcpyDeviceToHost);
  cudaFree(device_data);
  return (int)err;
}
