// Heavy templates: a register-blocked GEMM, C = alpha * A * B + beta * C
// (row-major), templated on element type and tile shape, with several
// instantiations as a library of kernels would have.
#include <cmath>
#include <vector>

#include "corpus.h"

namespace gemm {

template <typename T, int BM, int BN, int BK, int TM, int TN>
struct Config {
  using value_type = T;
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kTM = TM, kTN = TN;
  static constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "tile must divide the block");
};

template <typename Cfg>
__global__ void __launch_bounds__(Cfg::kThreads) kernel(int m, int n, int k, typename Cfg::value_type alpha,
                                                        const typename Cfg::value_type* a,
                                                        const typename Cfg::value_type* b,
                                                        typename Cfg::value_type beta,
                                                        typename Cfg::value_type* c) {
  using T = typename Cfg::value_type;
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Cfg::kBK, TM = Cfg::kTM, TN = Cfg::kTN;
  constexpr int kThreads = Cfg::kThreads;
  __shared__ T as[BK][BM];
  __shared__ T bs[BK][BN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int tr = (tid / (BN / TN)) * TM, tc = (tid % (BN / TN)) * TN;
  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = T(0);

  for (int kk = 0; kk < k; kk += BK) {
#pragma unroll
    for (int e = tid; e < BM * BK; e += kThreads) {
      int r = e / BK, q = e % BK;
      int gr = row0 + r, gq = kk + q;
      as[q][r] = (gr < m && gq < k) ? a[size_t(gr) * k + gq] : T(0);
    }
#pragma unroll
    for (int e = tid; e < BK * BN; e += kThreads) {
      int q = e / BN, cidx = e % BN;
      int gq = kk + q, gc = col0 + cidx;
      bs[q][cidx] = (gq < k && gc < n) ? b[size_t(gq) * n + gc] : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < BK; ++q) {
      T ra[TM], rb[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = as[q][tr + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = bs[q][tc + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      int r = row0 + tr + i, col = col0 + tc + j;
      if (r < m && col < n) c[size_t(r) * n + col] = alpha * acc[i][j] + beta * c[size_t(r) * n + col];
    }
}

template <typename Cfg>
cudaError_t run(int m, int n, int k, typename Cfg::value_type alpha, const typename Cfg::value_type* a,
                const typename Cfg::value_type* b, typename Cfg::value_type beta, typename Cfg::value_type* c) {
  dim3 grid((n + Cfg::kBN - 1) / Cfg::kBN, (m + Cfg::kBM - 1) / Cfg::kBM);
  kernel<Cfg><<<grid, Cfg::kThreads>>>(m, n, k, alpha, a, b, beta, c);
  return cudaGetLastError();
}

template <typename T>
void reference(int m, int n, int k, T alpha, const std::vector<T>& a, const std::vector<T>& b, T beta,
               std::vector<T>& c) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int q = 0; q < k; ++q) s += double(a[size_t(i) * k + q]) * double(b[size_t(q) * n + j]);
      c[size_t(i) * n + j] = T(alpha * s + beta * c[size_t(i) * n + j]);
    }
}

// Runs one configuration on an m x k by k x n product; returns the max relative error (or -1 on a CUDA error).
template <typename Cfg>
double check(int m, int n, int k) {
  using T = typename Cfg::value_type;
  std::vector<T> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n), got(c.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = T(int(i * 37 % 101) - 50) / T(64);
  for (size_t i = 0; i < b.size(); ++i) b[i] = T(int(i * 53 % 97) - 48) / T(64);
  for (size_t i = 0; i < c.size(); ++i) c[i] = T(int(i % 13)) / T(8);
  T *da, *db, *dc;
  if (cudaMalloc(&da, a.size() * sizeof(T)) != cudaSuccess) return -1;
  if (cudaMalloc(&db, b.size() * sizeof(T)) != cudaSuccess) return -1;
  if (cudaMalloc(&dc, c.size() * sizeof(T)) != cudaSuccess) return -1;
  cudaMemcpy(da, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c.data(), c.size() * sizeof(T), cudaMemcpyHostToDevice);
  if (run<Cfg>(m, n, k, T(1.5), da, db, T(-0.5), dc) != cudaSuccess) return -1;
  if (cudaMemcpy(got.data(), dc, c.size() * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) return -1;
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  reference(m, n, k, T(1.5), a, b, T(-0.5), c);
  double err = 0;
  for (size_t i = 0; i < c.size(); ++i) err = std::fmax(err, std::fabs(double(got[i]) - c[i]) / (1 + std::fabs(c[i])));
  return err;
}

}  // namespace gemm

using F128x128 = gemm::Config<float, 128, 128, 8, 8, 8>;
using F64x64 = gemm::Config<float, 64, 64, 16, 4, 4>;
using F128x64 = gemm::Config<float, 128, 64, 8, 8, 4>;
using F32x32 = gemm::Config<float, 32, 32, 32, 2, 2>;
using D64x64 = gemm::Config<double, 64, 64, 8, 4, 4>;
using D64x32 = gemm::Config<double, 64, 32, 8, 4, 2>;
using D32x32 = gemm::Config<double, 32, 32, 16, 2, 2>;

int corpus_gemm() {
  const int m = 200, n = 136, k = 72;  // not multiples of the tiles
  double errs[] = {
      gemm::check<F128x128>(m, n, k), gemm::check<F64x64>(m, n, k), gemm::check<F128x64>(m, n, k),
      gemm::check<F32x32>(m, n, k),   gemm::check<D64x64>(m, n, k), gemm::check<D64x32>(m, n, k),
      gemm::check<D32x32>(m, n, k),
  };
  double worst = 0;
  bool ok = true;
  for (double e : errs) {
    ok = ok && e >= 0 && e < 1e-4;
    worst = std::fmax(worst, e);
  }
  char detail[96];
  std::snprintf(detail, sizeof(detail), "7 tile configurations (float, double), %dx%dx%d, max error %.1e", m, n, k,
                worst);
  return corpus_report("gemm", ok, detail);
}
