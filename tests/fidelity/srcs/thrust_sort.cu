// thrust_sort.cu: Thrust containers and algorithms (device_vector, sort, reduce).
#include <cstdio>
#include <vector>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

extern "C" int fidelity_thrust_sort(void) {
  const int n = 1024;
  std::vector<int> h(n);
  long long want_sum = 0;
  for (int i = 0; i < n; ++i) {
    h[i] = (i * 7919) % 1009;  // deterministic permutation-ish values
    want_sum += h[i];
  }
  try {
    thrust::device_vector<int> d(h.begin(), h.end());
    thrust::sort(d.begin(), d.end());
    long long sum = thrust::reduce(d.begin(), d.end(), 0LL, thrust::plus<long long>());
    std::vector<int> sorted(n);
    thrust::copy(d.begin(), d.end(), sorted.begin());
    for (int i = 1; i < n; ++i) {
      if (sorted[i - 1] > sorted[i]) {
        std::printf("thrust_sort: not sorted at %d (%d > %d)\n", i, sorted[i - 1], sorted[i]);
        return 1;
      }
    }
    if (sum != want_sum) {
      std::printf("thrust_sort: reduce = %lld, want %lld\n", sum, want_sum);
      return 1;
    }
  } catch (const std::exception& e) {
    std::printf("thrust_sort: exception: %s\n", e.what());
    return 1;
  }
  return 0;
}
