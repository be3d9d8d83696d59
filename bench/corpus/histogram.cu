// Plain kernels: a 256-bin histogram privatized per block in shared memory,
// then an exclusive scan of the bins (cumulative distribution) in one block.
#include <vector>

#include "corpus.h"

constexpr int kBins = 256;

__global__ void histogram256(const unsigned char* data, int n, unsigned int* bins) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  // Four bytes per load where possible.
  const uchar4* data4 = reinterpret_cast<const uchar4*>(data);
  int n4 = n / 4;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    uchar4 v = data4[i];
    atomicAdd(&local[v.x], 1u);
    atomicAdd(&local[v.y], 1u);
    atomicAdd(&local[v.z], 1u);
    atomicAdd(&local[v.w], 1u);
  }
  for (int i = n4 * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[data[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

// Work-efficient (Blelloch) exclusive scan of 256 values in one block.
__global__ void exclusive_scan256(const unsigned int* in, unsigned int* out) {
  __shared__ unsigned int s[kBins];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int stride = 1; stride < kBins; stride *= 2) {
    int i = (t + 1) * stride * 2 - 1;
    if (i < kBins) s[i] += s[i - stride];
    __syncthreads();
  }
  if (t == 0) s[kBins - 1] = 0;
  __syncthreads();
  for (int stride = kBins / 2; stride >= 1; stride /= 2) {
    int i = (t + 1) * stride * 2 - 1;
    if (i < kBins) {
      unsigned int left = s[i - stride];
      s[i - stride] = s[i];
      s[i] += left;
    }
    __syncthreads();
  }
  out[t] = s[t];
}

int corpus_histogram() {
  const int n = (1 << 22) + 3;
  std::vector<unsigned char> data(n);
  unsigned int state = 12345;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    data[i] = static_cast<unsigned char>((state >> 24) ^ (state >> 13));
  }
  std::vector<unsigned int> expected(kBins, 0), expected_cdf(kBins), bins(kBins), cdf(kBins);
  for (unsigned char c : data) ++expected[c];
  unsigned int running = 0;
  for (int b = 0; b < kBins; ++b) {
    expected_cdf[b] = running;
    running += expected[b];
  }
  unsigned char* d_data;
  unsigned int *d_bins, *d_cdf;
  CORPUS_CHECK(cudaMalloc(&d_data, n));
  CORPUS_CHECK(cudaMalloc(&d_bins, kBins * sizeof(unsigned int)));
  CORPUS_CHECK(cudaMalloc(&d_cdf, kBins * sizeof(unsigned int)));
  CORPUS_CHECK(cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemset(d_bins, 0, kBins * sizeof(unsigned int)));
  histogram256<<<120, 256>>>(d_data, n, d_bins);
  exclusive_scan256<<<1, kBins>>>(d_bins, d_cdf);
  CORPUS_CHECK(cudaGetLastError());
  CORPUS_CHECK(cudaMemcpy(bins.data(), d_bins, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CORPUS_CHECK(cudaMemcpy(cdf.data(), d_cdf, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  cudaFree(d_data);
  cudaFree(d_bins);
  cudaFree(d_cdf);
  bool ok = bins == expected && cdf == expected_cdf;
  char detail[96];
  std::snprintf(detail, sizeof(detail), "%d bytes into %d bins, then their exclusive scan", n, kBins);
  return corpus_report("histogram", ok, detail);
}
