// Runs vector_add on the GPU and checks every element. Exit status 0 = PASS.
#include <cstdio>
#include <vector>

#include "vector_add.h"

int main() {
  const int n = 1 << 20;
  std::vector<float> a(n), b(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 2.0f * static_cast<float>(i);
  }
  cudaError_t err = vector_add(a.data(), b.data(), out.data(), n);
  if (err != cudaSuccess) {
    std::printf("FAIL: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    if (out[i] != 3.0f * static_cast<float>(i)) {
      std::printf("FAIL: out[%d] = %f, expected %f\n", i, out[i], 3.0f * i);
      return 1;
    }
  }
  int device = 0;
  cudaDeviceProp prop;
  cudaGetDevice(&device);
  cudaGetDeviceProperties(&prop, device);
  std::printf("PASS: vector_add of %d floats on %s (sm_%d%d)\n", n, prop.name, prop.major, prop.minor);
  return 0;
}
