// CUB sorting and segmented algorithms: radix sort of key-value pairs and of
// float keys (descending), and per-segment sums, checked against the host.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "corpus.h"

namespace {

uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

}  // namespace

int corpus_cub_sort() {
  const int n = 1 << 20;
  std::vector<uint32_t> keys(n);
  std::vector<int> values(n);
  std::vector<float> fkeys(n);
  for (int i = 0; i < n; ++i) {
    keys[i] = mix(i);
    values[i] = i;
    fkeys[i] = float(int(mix(i + n) % 20001) - 10000) / 16.0f;
  }
  uint32_t *d_keys, *d_keys_out;
  int *d_vals, *d_vals_out;
  float *d_f, *d_f_out;
  CORPUS_CHECK(cudaMalloc(&d_keys, n * sizeof(uint32_t)));
  CORPUS_CHECK(cudaMalloc(&d_keys_out, n * sizeof(uint32_t)));
  CORPUS_CHECK(cudaMalloc(&d_vals, n * sizeof(int)));
  CORPUS_CHECK(cudaMalloc(&d_vals_out, n * sizeof(int)));
  CORPUS_CHECK(cudaMalloc(&d_f, n * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&d_f_out, n * sizeof(float)));
  CORPUS_CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(d_vals, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(d_f, fkeys.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  // Key-value pairs: the values must follow their keys (mix is a bijection: keys are unique).
  CORPUS_CHECK(corpus_with_temp([&](void* t, size_t& b) {
    return cub::DeviceRadixSort::SortPairs(t, b, d_keys, d_keys_out, d_vals, d_vals_out, n);
  }));
  std::vector<uint32_t> got_keys(n);
  std::vector<int> got_vals(n);
  CORPUS_CHECK(cudaMemcpy(got_keys.data(), d_keys_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CORPUS_CHECK(cudaMemcpy(got_vals.data(), d_vals_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  bool pairs_ok = std::is_sorted(got_keys.begin(), got_keys.end());
  for (int i = 0; i < n && pairs_ok; i += 101) pairs_ok = keys[got_vals[i]] == got_keys[i];

  CORPUS_CHECK(corpus_with_temp(
      [&](void* t, size_t& b) { return cub::DeviceRadixSort::SortKeysDescending(t, b, d_f, d_f_out, n); }));
  std::vector<float> got_f(n), want_f = fkeys;
  CORPUS_CHECK(cudaMemcpy(got_f.data(), d_f_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::sort(want_f.begin(), want_f.end(), [](float a, float b) { return a > b; });
  bool floats_ok = got_f == want_f;

  // Segments of growing length; sum each.
  std::vector<int> offsets = {0};
  while (offsets.back() < n) offsets.push_back(std::min(n, offsets.back() + 1 + int(offsets.size()) * 37));
  int segments = int(offsets.size()) - 1;
  int *d_offsets, *d_sums;
  CORPUS_CHECK(cudaMalloc(&d_offsets, offsets.size() * sizeof(int)));
  CORPUS_CHECK(cudaMalloc(&d_sums, segments * sizeof(int)));
  CORPUS_CHECK(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
  CORPUS_CHECK(corpus_with_temp([&](void* t, size_t& b) {
    return cub::DeviceSegmentedReduce::Sum(t, b, d_vals, d_sums, segments, d_offsets, d_offsets + 1);
  }));
  std::vector<int> sums(segments);
  CORPUS_CHECK(cudaMemcpy(sums.data(), d_sums, segments * sizeof(int), cudaMemcpyDeviceToHost));
  bool segments_ok = true;
  for (int s = 0; s < segments; ++s) {
    long long want = 0;
    for (int i = offsets[s]; i < offsets[s + 1]; ++i) want += values[i];
    segments_ok = segments_ok && sums[s] == int(want);
  }

  cudaFree(d_keys);
  cudaFree(d_keys_out);
  cudaFree(d_vals);
  cudaFree(d_vals_out);
  cudaFree(d_f);
  cudaFree(d_f_out);
  cudaFree(d_offsets);
  cudaFree(d_sums);
  char detail[128];
  std::snprintf(detail, sizeof(detail), "radix sort of %d pairs (%s), %d float keys (%s), %d segment sums (%s)", n,
                pairs_ok ? "ok" : "wrong", n, floats_ok ? "ok" : "wrong", segments, segments_ok ? "ok" : "wrong");
  return corpus_report("cub_sort", pairs_ok && floats_ok && segments_ok, detail);
}
