// CUB device-wide algorithms: reductions, scans, stream compaction and
// run-length encoding over int and float, each checked against the host.
// (Float inputs are multiples of 1/4 with small partial sums: every sum is
// exact in float, whatever the order.)
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "corpus.h"

namespace {

struct IsPositive {
  template <typename T>
  __host__ __device__ bool operator()(const T& v) const {
    return v > T(0);
  }
};

template <typename T>
bool close(T a, T b) {
  return std::fabs(double(a) - double(b)) <= 1e-3 * (1 + std::fabs(double(b)));
}

template <typename T>
int check_type(int n, int* checks) {
  std::vector<T> h(n);
  for (int i = 0; i < n; ++i) h[i] = T((i * 7919LL) % 2001 - 1000) / T(std::is_floating_point<T>::value ? 4 : 1);
  T *d_in, *d_out, *d_scalar;
  int* d_count;
  CORPUS_CHECK(cudaMalloc(&d_in, n * sizeof(T)));
  CORPUS_CHECK(cudaMalloc(&d_out, n * sizeof(T)));
  CORPUS_CHECK(cudaMalloc(&d_scalar, sizeof(T)));
  CORPUS_CHECK(cudaMalloc(&d_count, sizeof(int)));
  CORPUS_CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  bool ok = true;
  T got;

  CORPUS_CHECK(corpus_with_temp([&](void* t, size_t& b) { return cub::DeviceReduce::Sum(t, b, d_in, d_scalar, n); }));
  CORPUS_CHECK(cudaMemcpy(&got, d_scalar, sizeof(T), cudaMemcpyDeviceToHost));
  ok = ok && close(got, std::accumulate(h.begin(), h.end(), T(0)));

  CORPUS_CHECK(corpus_with_temp([&](void* t, size_t& b) { return cub::DeviceReduce::Max(t, b, d_in, d_scalar, n); }));
  CORPUS_CHECK(cudaMemcpy(&got, d_scalar, sizeof(T), cudaMemcpyDeviceToHost));
  ok = ok && got == *std::max_element(h.begin(), h.end());

  CORPUS_CHECK(corpus_with_temp([&](void* t, size_t& b) { return cub::DeviceReduce::Min(t, b, d_in, d_scalar, n); }));
  CORPUS_CHECK(cudaMemcpy(&got, d_scalar, sizeof(T), cudaMemcpyDeviceToHost));
  ok = ok && got == *std::min_element(h.begin(), h.end());

  std::vector<T> out(n), want(n);
  CORPUS_CHECK(corpus_with_temp([&](void* t, size_t& b) { return cub::DeviceScan::InclusiveSum(t, b, d_in, d_out, n); }));
  CORPUS_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  std::partial_sum(h.begin(), h.end(), want.begin());
  for (int i = 0; i < n; i += 97) ok = ok && close(out[i], want[i]);

  CORPUS_CHECK(corpus_with_temp([&](void* t, size_t& b) { return cub::DeviceScan::ExclusiveSum(t, b, d_in, d_out, n); }));
  CORPUS_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  ok = ok && out[0] == T(0);
  for (int i = 1; i < n; i += 97) ok = ok && close(out[i], want[i - 1]);

  CORPUS_CHECK(corpus_with_temp([&](void* t, size_t& b) {
    return cub::DeviceScan::InclusiveScan(t, b, d_in, d_out, cuda::maximum<T>{}, n);
  }));
  CORPUS_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  T running = h[0];
  for (int i = 0; i < n; ++i) {
    running = std::max(running, h[i]);
    ok = ok && out[i] == running;
  }

  CORPUS_CHECK(corpus_with_temp(
      [&](void* t, size_t& b) { return cub::DeviceSelect::If(t, b, d_in, d_out, d_count, n, IsPositive{}); }));
  int count = 0;
  CORPUS_CHECK(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<T> selected;
  std::copy_if(h.begin(), h.end(), std::back_inserter(selected), IsPositive{});
  ok = ok && count == int(selected.size());
  if (ok) {
    CORPUS_CHECK(cudaMemcpy(out.data(), d_out, count * sizeof(T), cudaMemcpyDeviceToHost));
    ok = std::equal(selected.begin(), selected.end(), out.begin());
  }

  // Runs of equal values: the input divided by 64 (integer) or floored.
  std::vector<T> runs(n);
  for (int i = 0; i < n; ++i) runs[i] = T(i / 64);
  CORPUS_CHECK(cudaMemcpy(d_in, runs.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  int* d_lengths;
  CORPUS_CHECK(cudaMalloc(&d_lengths, n * sizeof(int)));
  CORPUS_CHECK(corpus_with_temp([&](void* t, size_t& b) {
    return cub::DeviceRunLengthEncode::Encode(t, b, d_in, d_out, d_lengths, d_count, n);
  }));
  CORPUS_CHECK(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
  ok = ok && count == (n + 63) / 64;
  std::vector<int> lengths(count > 0 ? count : 1);
  CORPUS_CHECK(cudaMemcpy(lengths.data(), d_lengths, count * sizeof(int), cudaMemcpyDeviceToHost));
  for (int r = 0; r + 1 < count; ++r) ok = ok && lengths[r] == 64;

  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_scalar);
  cudaFree(d_count);
  cudaFree(d_lengths);
  *checks += 8;
  return ok ? 0 : 1;
}

}  // namespace

int corpus_cub_scan() {
  const int n = 1000003;
  int checks = 0;
  int failed = check_type<int>(n, &checks) + check_type<float>(n, &checks);
  char detail[96];
  std::snprintf(detail, sizeof(detail), "%d algorithm x type checks on %d elements, %d types failed", checks, n,
                failed);
  return corpus_report("cub_scan", failed == 0, detail);
}
