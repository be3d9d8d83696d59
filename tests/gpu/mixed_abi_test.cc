// Three libraries instantiate the same CUB algorithm, compiled with different
// __CUDA_ARCH_LIST__ values (the shipped set's, an unstaged target's own, an
// arch outside the shipped set's own), linked into one binary: CCCL's ABI
// namespace keeps the instantiations apart, so each computes the right sum.
#include <cstdio>
#include <vector>

extern "C" long long mixed_abi_sum_a(const int* values, int n);
extern "C" long long mixed_abi_sum_b(const int* values, int n);
extern "C" long long mixed_abi_sum_c(const int* values, int n);

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
  long long c = mixed_abi_sum_c(values.data(), n);
  bool ok = a == expected && b == expected && c == expected;
  std::printf("%s mixed ABI lists: a = %lld, b = %lld, c = %lld, expected %lld\n", ok ? "PASS" : "FAIL", a, b, c,
              expected);
  return ok ? 0 : 1;
}
