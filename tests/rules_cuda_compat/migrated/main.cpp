#include <cuda_runtime.h>

#include <cstdio>

#include "kernels.h"

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: built only\n");
    return 0;
  }
  int sum = fill_and_sum(1000);
  std::printf("sum %d\n", sum);
  return sum == 7000 ? 0 : 1;
}
