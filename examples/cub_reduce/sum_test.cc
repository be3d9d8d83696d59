// Checks both CUB reductions against a host sum. Exit status 0 = PASS.
#include <cstdio>
#include <vector>

#include "sum.h"

int main() {
  const int n = 1 << 22;
  std::vector<int> values(n);
  long long expected = 0;
  for (int i = 0; i < n; ++i) {
    values[i] = (i * 7919) % 1001 - 500;
    expected += values[i];
  }
  long long device = 0, block = 0;
  cudaError_t e1 = device_sum(values.data(), n, &device);
  cudaError_t e2 = block_sum(values.data(), n, &block);
  bool ok = e1 == cudaSuccess && e2 == cudaSuccess && device == expected && block == expected;
  std::printf("%s cub::DeviceReduce::Sum = %lld, cub::BlockReduce = %lld, host = %lld (%s, %s)\n",
              ok ? "PASS" : "FAIL", device, block, expected, cudaGetErrorString(e1), cudaGetErrorString(e2));
  return ok ? 0 : 1;
}
