#include <cstdio>

#include "kernel.h"

int main() {
  float v[1000];
  for (int i = 0; i < 1000; ++i) v[i] = static_cast<float>(i);
  if (scale_on_gpu(v, 1000) != 0) return 1;
  for (int i = 0; i < 1000; ++i) {
    if (v[i] != 3.0f * i) {
      std::printf("FAIL: v[%d] = %g\n", i, v[i]);
      return 1;
    }
  }
  std::printf("PASS: basic (cuda_library + cc_test, host_defines), KERNEL_SCALE=%d\n", KERNEL_SCALE);
  return 0;
}
