// Plain C++ (the C++ toolchain) over a cuda_library whose header includes Thrust.
#include <cstdio>

#include "tests/cc_sources/device_sum.h"

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU\n");
    return 0;
  }
  int sum = device_sum(100, 3);
  std::printf("sum %d\n", sum);
  return sum == 300 ? 0 : 1;
}
