#include <stdio.h>

#include "tests/gpu/runtime_from_c.h"

int main(void) {
  enum { N = 4096 };
  static float data[N];
  for (int i = 0; i < N; ++i) data[i] = (float)i;
  int err = scale_on_gpu(data, N, 3.0f);
  if (err != 0) {
    printf("FAIL: scale_on_gpu returned CUDA error %d\n", err);
    return 1;
  }
  for (int i = 0; i < N; ++i) {
    if (data[i] != 3.0f * (float)i) {
      printf("FAIL: data[%d] = %g, want %g\n", i, data[i], 3.0f * (float)i);
      return 1;
    }
  }
  printf("PASS: %d floats scaled on the GPU from C, through a cc_library linked as a shared object\n", N);
  return 0;
}
