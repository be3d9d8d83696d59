// Templated row-wise kernels of a neural-network layer, built on CUB's
// block and warp primitives: softmax and layer normalization, one
// instantiation per row width and element type.
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <cmath>
#include <vector>

#include "corpus.h"

namespace rows {

// Rows of up to 32 * kPerThread values: one warp per row, the values in registers.
template <typename T, int kPerThread>
__global__ void warp_softmax(const T* in, T* out, int rows, int cols) {
  using WarpReduce = cub::WarpReduce<float>;
  __shared__ typename WarpReduce::TempStorage temp[4];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int row = blockIdx.x * 4 + warp;
  if (row >= rows) return;
  float v[kPerThread];
  float hi = -INFINITY;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    int c = lane + 32 * k;
    v[k] = c < cols ? float(in[size_t(row) * cols + c]) : -INFINITY;
    hi = fmaxf(hi, v[k]);
  }
  hi = WarpReduce(temp[warp]).Reduce(hi, cuda::maximum<float>{});
  hi = __shfl_sync(0xffffffffu, hi, 0);
  float sum = 0;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    v[k] = lane + 32 * k < cols ? __expf(v[k] - hi) : 0.0f;
    sum += v[k];
  }
  __syncwarp();
  sum = WarpReduce(temp[warp]).Sum(sum);
  sum = __shfl_sync(0xffffffffu, sum, 0);
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    int c = lane + 32 * k;
    if (c < cols) out[size_t(row) * cols + c] = T(v[k] / sum);
  }
}

// Wide rows: one block per row.
template <typename T, int kThreads, int kPerThread>
__global__ void __launch_bounds__(kThreads) block_layer_norm(const T* in, const T* gamma, const T* beta, T* out,
                                                             int cols, float eps) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ float mean_s, rstd_s;
  const T* x = in + size_t(blockIdx.x) * cols;
  float v[kPerThread];
  float sum = 0;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    int c = threadIdx.x + kThreads * k;
    v[k] = c < cols ? float(x[c]) : 0.0f;
    sum += v[k];
  }
  sum = BlockReduce(temp).Sum(sum);
  if (threadIdx.x == 0) mean_s = sum / cols;
  __syncthreads();
  float var = 0;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    int c = threadIdx.x + kThreads * k;
    float d = c < cols ? v[k] - mean_s : 0.0f;
    var += d * d;
  }
  var = BlockReduce(temp).Sum(var);
  if (threadIdx.x == 0) rstd_s = rsqrtf(var / cols + eps);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    int c = threadIdx.x + kThreads * k;
    if (c < cols) out[size_t(blockIdx.x) * cols + c] = T((v[k] - mean_s) * rstd_s * float(gamma[c]) + float(beta[c]));
  }
}

template <typename T>
double softmax_error(int rows, int cols, const std::vector<T>& in, const std::vector<T>& got) {
  double err = 0;
  for (int r = 0; r < rows; ++r) {
    double hi = -1e300, sum = 0;
    for (int c = 0; c < cols; ++c) hi = std::fmax(hi, double(in[size_t(r) * cols + c]));
    for (int c = 0; c < cols; ++c) sum += std::exp(double(in[size_t(r) * cols + c]) - hi);
    for (int c = 0; c < cols; ++c)
      err = std::fmax(err, std::fabs(std::exp(double(in[size_t(r) * cols + c]) - hi) / sum - double(got[size_t(r) * cols + c])));
  }
  return err;
}

template <typename T, int kPerThread>
double check_softmax(int rows, int cols) {
  std::vector<T> in(size_t(rows) * cols), got(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = T(std::sin(0.7 * i) * 4);
  T *d_in, *d_out;
  if (cudaMalloc(&d_in, in.size() * sizeof(T)) || cudaMalloc(&d_out, in.size() * sizeof(T))) return -1;
  cudaMemcpy(d_in, in.data(), in.size() * sizeof(T), cudaMemcpyHostToDevice);
  warp_softmax<T, kPerThread><<<(rows + 3) / 4, 128>>>(d_in, d_out, rows, cols);
  if (cudaMemcpy(got.data(), d_out, got.size() * sizeof(T), cudaMemcpyDeviceToHost)) return -1;
  cudaFree(d_in);
  cudaFree(d_out);
  return softmax_error(rows, cols, in, got);
}

template <typename T, int kThreads, int kPerThread>
double check_layer_norm(int rows, int cols) {
  std::vector<T> in(size_t(rows) * cols), got(in.size()), gamma(cols), beta(cols);
  for (size_t i = 0; i < in.size(); ++i) in[i] = T(std::cos(0.3 * i) * 2 + (i % cols) * 0.001);
  for (int c = 0; c < cols; ++c) {
    gamma[c] = T(1 + 0.01 * c);
    beta[c] = T(0.5 - 0.001 * c);
  }
  T *d_in, *d_out, *d_gamma, *d_beta;
  if (cudaMalloc(&d_in, in.size() * sizeof(T)) || cudaMalloc(&d_out, in.size() * sizeof(T)) ||
      cudaMalloc(&d_gamma, cols * sizeof(T)) || cudaMalloc(&d_beta, cols * sizeof(T)))
    return -1;
  cudaMemcpy(d_in, in.data(), in.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(d_gamma, gamma.data(), cols * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(d_beta, beta.data(), cols * sizeof(T), cudaMemcpyHostToDevice);
  block_layer_norm<T, kThreads, kPerThread><<<rows, kThreads>>>(d_in, d_gamma, d_beta, d_out, cols, 1e-5f);
  if (cudaMemcpy(got.data(), d_out, got.size() * sizeof(T), cudaMemcpyDeviceToHost)) return -1;
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_gamma);
  cudaFree(d_beta);
  double err = 0;
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c) mean += double(in[size_t(r) * cols + c]);
    mean /= cols;
    for (int c = 0; c < cols; ++c) var += (double(in[size_t(r) * cols + c]) - mean) * (double(in[size_t(r) * cols + c]) - mean);
    double rstd = 1 / std::sqrt(var / cols + 1e-5);
    for (int c = 0; c < cols; ++c) {
      double want = (double(in[size_t(r) * cols + c]) - mean) * rstd * double(gamma[c]) + double(beta[c]);
      err = std::fmax(err, std::fabs(want - double(got[size_t(r) * cols + c])) / (1 + std::fabs(want)));
    }
  }
  return err;
}

}  // namespace rows

int corpus_softmax() {
  double errs[] = {
      rows::check_softmax<float, 1>(37, 32),       rows::check_softmax<float, 2>(37, 50),
      rows::check_softmax<float, 4>(37, 128),      rows::check_softmax<float, 8>(21, 250),
      rows::check_softmax<float, 16>(11, 512),     rows::check_softmax<double, 4>(19, 100),
      rows::check_layer_norm<float, 128, 4>(9, 500),  rows::check_layer_norm<float, 256, 4>(7, 1024),
      rows::check_layer_norm<float, 256, 8>(5, 2000), rows::check_layer_norm<float, 512, 8>(3, 4096),
      rows::check_layer_norm<double, 256, 4>(5, 900),
  };
  bool ok = cudaGetLastError() == cudaSuccess;
  double worst = 0;
  for (double e : errs) {
    ok = ok && e >= 0 && e < 1e-4;
    worst = std::fmax(worst, e);
  }
  char detail[96];
  std::snprintf(detail, sizeof(detail), "6 softmax and 5 layer-norm variants, max error %.1e", worst);
  return corpus_report("softmax", ok, detail);
}
