// One of three libraries (the others are this file with mixed_abi_sum_b and
// mixed_abi_sum_c, made by tests/gpu:mixed_abi_{b,c}_src) that use the same
// CUB algorithm but are compiled with different __CUDA_ARCH_LIST__ values
// (see mixed_abi_test.cc).
#include <cub/cub.cuh>

extern "C" long long mixed_abi_sum_a(const int* values, int n) {
  int* d_in = nullptr;
  long long* d_out = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  long long sum = -1;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, sizeof(long long));
  cudaMemcpy(d_in, values, n * sizeof(int), cudaMemcpyHostToDevice);
  cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n);
  cudaMalloc(&temp, temp_bytes);
  if (cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n) == cudaSuccess) {
    cudaMemcpy(&sum, d_out, sizeof(long long), cudaMemcpyDeviceToHost);
  }
  cudaFree(temp);
  cudaFree(d_in);
  cudaFree(d_out);
  return sum;
}
