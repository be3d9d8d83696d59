// A CUB reduction: cub::DeviceReduce and cub::BlockReduce.
#include <cub/cub.cuh>
#include <vector>

#include "sum.h"

cudaError_t device_sum(const int* values, int n, long long* sum) {
  int* d_in = nullptr;
  long long* d_out = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  cudaError_t err;
  if ((err = cudaMalloc(&d_in, n * sizeof(int))) != cudaSuccess) return err;
  if ((err = cudaMalloc(&d_out, sizeof(long long))) != cudaSuccess) return err;
  cudaMemcpy(d_in, values, n * sizeof(int), cudaMemcpyHostToDevice);
  cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n);
  if ((err = cudaMalloc(&temp, temp_bytes)) != cudaSuccess) return err;
  if ((err = cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n)) != cudaSuccess) return err;
  err = cudaMemcpy(sum, d_out, sizeof(long long), cudaMemcpyDeviceToHost);
  cudaFree(temp);
  cudaFree(d_in);
  cudaFree(d_out);
  return err;
}

constexpr int kBlock = 256;

__global__ void block_sum_kernel(const int* in, int n, long long* block_sums) {
  using BlockReduce = cub::BlockReduce<long long, kBlock>;
  __shared__ typename BlockReduce::TempStorage temp;
  int i = blockIdx.x * kBlock + threadIdx.x;
  long long v = i < n ? in[i] : 0;
  long long total = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = total;
}

cudaError_t block_sum(const int* values, int n, long long* sum) {
  int blocks = (n + kBlock - 1) / kBlock;
  int* d_in = nullptr;
  long long* d_sums = nullptr;
  cudaError_t err;
  if ((err = cudaMalloc(&d_in, n * sizeof(int))) != cudaSuccess) return err;
  if ((err = cudaMalloc(&d_sums, blocks * sizeof(long long))) != cudaSuccess) return err;
  cudaMemcpy(d_in, values, n * sizeof(int), cudaMemcpyHostToDevice);
  block_sum_kernel<<<blocks, kBlock>>>(d_in, n, d_sums);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  std::vector<long long> sums(blocks);
  err = cudaMemcpy(sums.data(), d_sums, blocks * sizeof(long long), cudaMemcpyDeviceToHost);
  *sum = 0;
  for (long long s : sums) *sum += s;
  cudaFree(d_in);
  cudaFree(d_sums);
  return err;
}
