#include <cstdio>

int a_run(float* data, int n);

int main() {
  float v[256];
  for (int i = 0; i < 256; ++i) v[i] = static_cast<float>(i);
  int rc = a_run(v, 256);
  if (rc != 0) {
    std::printf("FAIL: a_run returned %d\n", rc);
    return 1;
  }
  for (int i = 0; i < 256; ++i) {
    if (v[i] != 2.0f * i + 0.5f) {
      std::printf("FAIL: v[%d] = %g\n", i, v[i]);
      return 1;
    }
  }
  std::printf("PASS: rdc (cuda_objects a -> b, cuda_library(rdc = 1), plain cc_test), 256 elements\n");
  return 0;
}
