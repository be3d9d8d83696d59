// coop_groups.cu: cooperative groups (thread_block, tiled_partition) and a
// warp-level reduction with cg::reduce.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 128;

__global__ void cg_sum_kernel(const int* in, int n, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ int warp_sums[kThreads / 32];
  int i = blockIdx.x * kThreads + block.thread_rank();
  int v = i < n ? in[i] : 0;
  int wsum = cg::reduce(warp, v, cg::plus<int>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = wsum;
  block.sync();
  if (block.thread_rank() == 0) {
    int total = 0;
    for (int w = 0; w < kThreads / 32; ++w) total += warp_sums[w];
    atomicAdd(out, total);
  }
}

extern "C" int fidelity_coop_groups(void) {
  const int n = 1000;
  int h[n], want = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i % 13) - 4; want += h[i]; }
  int *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, sizeof(int));
  cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, sizeof(int));
  cg_sum_kernel<<<(n + kThreads - 1) / kThreads, kThreads>>>(d_in, n, d_out);
  cudaError_t err = cudaGetLastError();
  int got = 0;
  if (err == cudaSuccess) err = cudaMemcpy(&got, d_out, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  if (err != cudaSuccess) {
    std::printf("coop_groups: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  if (got != want) {
    std::printf("coop_groups: sum = %d, want %d\n", got, want);
    return 1;
  }
  return 0;
}
