// cub_reduce.cu: CUB device-wide reduction (cub::DeviceReduce::Sum) and a
// block-wide reduction inside a kernel (cub::BlockReduce).
#include <cstdio>
#include <cub/cub.cuh>
#include <cuda_runtime.h>

constexpr int kThreads = 128;

__global__ void block_reduce_kernel(const int* in, int n, int* block_sums) {
  using BlockReduce = cub::BlockReduce<int, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  int i = blockIdx.x * kThreads + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int sum = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

extern "C" int fidelity_cub_reduce(void) {
  const int n = 1000;
  const int blocks = (n + kThreads - 1) / kThreads;
  int h[n];
  long long want = 0;
  for (int i = 0; i < n; ++i) { h[i] = i % 10 + 1; want += h[i]; }
  int *d_in = nullptr, *d_out = nullptr, *d_blocks = nullptr;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, sizeof(int));
  cudaMalloc(&d_blocks, blocks * sizeof(int));
  cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);

  // Device-wide sum: first call sizes the temporary storage.
  void* d_temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n);
  cudaMalloc(&d_temp, temp_bytes);
  cudaError_t err = cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n);

  if (err == cudaSuccess) {
    block_reduce_kernel<<<blocks, kThreads>>>(d_in, n, d_blocks);
    err = cudaGetLastError();
  }
  int dev_sum = 0, h_blocks[blocks];
  if (err == cudaSuccess) err = cudaMemcpy(&dev_sum, d_out, sizeof(int), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess)
    err = cudaMemcpy(h_blocks, d_blocks, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_temp);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_blocks);
  if (err != cudaSuccess) {
    std::printf("cub_reduce: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  long long block_total = 0;
  for (int b = 0; b < blocks; ++b) block_total += h_blocks[b];
  if (dev_sum != want || block_total != want) {
    std::printf("cub_reduce: DeviceReduce=%d BlockReduce=%lld want %lld\n", dev_sum,
                block_total, want);
    return 1;
  }
  return 0;
}
