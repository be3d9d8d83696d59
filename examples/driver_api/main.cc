// A CUDA driver API program: it links no device code, and loads the fatbinary
// of kernels.cu at run time (cuModuleLoad) from its runfiles, where the BUILD
// file's cuda_device_image put it. Usage: driver_api_demo RLOCATIONPATH
// (the BUILD file passes $(rlocationpath :kernels_fatbin)).
#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CU_CHECK(expr)                                                                          \
  do {                                                                                          \
    CUresult status_ = (expr);                                                                  \
    if (status_ != CUDA_SUCCESS) {                                                              \
      const char* name_ = nullptr;                                                              \
      cuGetErrorName(status_, &name_);                                                          \
      std::fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #expr, name_ ? name_ : "?"); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

// A runfile's path from its rlocation path: under `bazel run` / `bazel test`
// (RUNFILES_DIR, TEST_SRCDIR), or next to the binary (<binary>.runfiles/).
// (The runfiles library, @rules_cc//cc/runfiles, does the same and more.)
static std::string runfile(const char* argv0, const std::string& rlocation) {
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(var)) return std::string(dir) + "/" + rlocation;
  }
  return std::string(argv0) + ".runfiles/" + rlocation;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s RLOCATIONPATH_OF_THE_FATBIN\n", argv[0]);
    return 2;
  }
  std::string path = runfile(argv[0], argv[1]);

  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  CUmodule module;
  CU_CHECK(cuModuleLoad(&module, path.c_str()));
  CUfunction scale_add;
  CU_CHECK(cuModuleGetFunction(&scale_add, module, "scale_add"));

  int n = 1 << 16;
  float a = 3.0f;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * i;
    y[i] = 1.0f;
  }
  CUdeviceptr dx, dy;
  CU_CHECK(cuMemAlloc(&dx, n * sizeof(float)));
  CU_CHECK(cuMemAlloc(&dy, n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
  void* args[] = {&a, &dx, &dy, &n};
  CU_CHECK(cuLaunchKernel(scale_add, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CU_CHECK(cuCtxSynchronize());
  CU_CHECK(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    if (std::fabs(y[i] - (a * x[i] + 1.0f)) > 1e-3f * std::fabs(a * x[i] + 1.0f)) {
      std::fprintf(stderr, "FAIL: y[%d] = %g, expected %g\n", i, y[i], a * x[i] + 1.0f);
      return 1;
    }
  }
  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuMemFree(dy));
  CU_CHECK(cuModuleUnload(module));
  std::printf("PASS: loaded %s with cuModuleLoad and ran scale_add on %d elements\n", argv[1], n);
  return 0;
}
