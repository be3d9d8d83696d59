// Checks every instantiation of the templated kernel. Exit status 0 = PASS.
#include <cstdio>
#include <vector>

#include "scale.cuh"

template <typename T, int Factor>
bool check(const char* name) {
  const int n = 100000;
  std::vector<T> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<T>(i % 1000);
  cudaError_t err = scale<T, Factor>(in.data(), out.data(), n);
  if (err != cudaSuccess) {
    std::printf("FAIL %s: %s\n", name, cudaGetErrorString(err));
    return false;
  }
  for (int i = 0; i < n; ++i) {
    if (out[i] != in[i] * static_cast<T>(Factor)) {
      std::printf("FAIL %s: out[%d] wrong\n", name, i);
      return false;
    }
  }
  std::printf("PASS %s\n", name);
  return true;
}

int main() {
  bool ok = check<int, 3>("scale<int, 3>");
  ok = check<float, 2>("scale<float, 2>") && ok;
  ok = check<double, 5>("scale<double, 5>") && ok;
  return ok ? 0 : 1;
}
