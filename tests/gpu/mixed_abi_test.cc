// Two libraries instantiate the same CUB algorithm, compiled with different
// __CUDA_ARCH_LIST__ values, linked into one binary: CCCL's ABI namespace keeps
// the two instantiations apart, so both compute the right sum.
#include <cstdio>
#include <vector>

extern "C" long long mixed_abi_sum_a(const int* values, int n);
extern "C" long long mixed_abi_sum_b(const int* values, int n);

int main() {
  const int n = 1 << 20;
  std::vector<int> values(n);
  long long expected = 0;
  for (int i = 0; i < n; ++i) {
    values[i] = i % 97 - 48;
    expected += values[i];
  }
  long long a = mixed_abi_sum_a(values.data(), n);
  long long b = mixed_abi_sum_b(values.data(), n);
  bool ok = a == expected && b == expected;
  std::printf("%s mixed ABI lists: a = %lld, b = %lld, expected %lld\n", ok ? "PASS" : "FAIL", a, b, expected);
  return ok ? 0 : 1;
}
