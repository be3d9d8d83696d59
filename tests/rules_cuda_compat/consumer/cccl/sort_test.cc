#include <cstdio>
#include <vector>

#include "sort.h"

int main() {
  std::vector<int> v;
  for (int i = 0; i < 10000; ++i) v.push_back((i * 7919) % 10007);
  long long expected = 0;
  for (int x : v) expected += x;
  long long got = sort_and_sum(v);
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i - 1] > v[i]) {
      std::printf("FAIL: not sorted at %zu\n", i);
      return 1;
    }
  }
  if (got != expected) {
    std::printf("FAIL: sum %lld, expected %lld\n", got, expected);
    return 1;
  }
  std::printf("PASS: @cuda//:thrust sort and @cuda//:cub sum of %zu ints (%lld)\n", v.size(), got);
  return 0;
}
