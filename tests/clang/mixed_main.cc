// mixed_main.cc: one binary with a clang-compiled library (fidelity_plain_kernel) and an
// nvcc-compiled one (mixed_nvcc_scale); both kernels run and check their results, and
// clang's __host__ / __device__ overloads (hd_overload.cu) each run on their side,
// and clang's relocatable device code (rdc_kernel.cu, rdc_twice.cu) runs, device-linked.
#include <cstdio>

extern "C" int fidelity_plain_kernel(void);
extern "C" int mixed_nvcc_scale(void);
extern "C" int hd_overload_host_side(void);
extern "C" int hd_overload_device_side(void);
extern "C" int clang_rdc_affine(void);

int main() {
  int clang_rc = fidelity_plain_kernel();
  std::printf("%s clang-compiled saxpy\n", clang_rc == 0 ? "PASS" : "FAIL");
  int nvcc_rc = mixed_nvcc_scale();
  std::printf("%s nvcc-compiled scale\n", nvcc_rc == 0 ? "PASS" : "FAIL");
  // clang's __host__ / __device__ overloads: each side ran its own.
  int host_side = hd_overload_host_side();
  int device_side = hd_overload_device_side();
  int hd_ok = host_side == 1 && device_side == 2;
  std::printf("%s host/device overloads (host %d, device %d)\n", hd_ok ? "PASS" : "FAIL", host_side, device_side);
  // Relocatable device code compiled by clang, device-linked by nvlink: a kernel
  // calling a __device__ function and reading a variable of another file.
  int rdc_rc = clang_rdc_affine();
  std::printf("%s clang-compiled relocatable device code across two files\n", rdc_rc == 0 ? "PASS" : "FAIL");
  return clang_rc != 0 || nvcc_rc != 0 || !hd_ok || rdc_rc != 0;
}
