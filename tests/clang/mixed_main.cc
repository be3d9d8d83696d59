// mixed_main.cc: one binary with a clang-compiled library (fidelity_plain_kernel) and an
// nvcc-compiled one (mixed_nvcc_scale); both kernels run and check their results.
#include <cstdio>

extern "C" int fidelity_plain_kernel(void);
extern "C" int mixed_nvcc_scale(void);

int main() {
  int clang_rc = fidelity_plain_kernel();
  std::printf("%s clang-compiled saxpy\n", clang_rc == 0 ? "PASS" : "FAIL");
  int nvcc_rc = mixed_nvcc_scale();
  std::printf("%s nvcc-compiled scale\n", nvcc_rc == 0 ? "PASS" : "FAIL");
  return clang_rc != 0 || nvcc_rc != 0;
}
