// cuda_device_image on a GPU: every module given (fatbinary, PTX for the
// driver to JIT, cubins) loads with cuModuleLoad from its runfiles path and
// runs scale_add. A cubin for another GPU arch cannot load
// (CUDA_ERROR_NO_BINARY_FOR_GPU) and is reported; at least one cubin must
// match this GPU. Usage: load_images_test RLOCATIONPATH...
#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CU_CHECK(expr)                                                                              \
  do {                                                                                              \
    CUresult status_ = (expr);                                                                      \
    if (status_ != CUDA_SUCCESS) {                                                                  \
      const char* name_ = nullptr;                                                                  \
      cuGetErrorName(status_, &name_);                                                              \
      std::fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #expr, name_ ? name_ : "?"); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

static std::string runfile(const std::string& rlocation) {
  const char* dir = std::getenv("TEST_SRCDIR");
  if (!dir) {
    std::fprintf(stderr, "FAIL: TEST_SRCDIR is not set (run with bazel test)\n");
    std::exit(1);
  }
  return std::string(dir) + "/" + rlocation;
}

static bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

static void run(CUmodule module, const std::string& what) {
  CUfunction scale_add;
  CU_CHECK(cuModuleGetFunction(&scale_add, module, "scale_add"));
  int n = 4099;
  float a = -2.0f;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.125f * i;
    y[i] = 7.0f;
  }
  CUdeviceptr dx, dy;
  CU_CHECK(cuMemAlloc(&dx, n * sizeof(float)));
  CU_CHECK(cuMemAlloc(&dy, n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
  void* args[] = {&a, &dx, &dy, &n};
  CU_CHECK(cuLaunchKernel(scale_add, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CU_CHECK(cuCtxSynchronize());
  CU_CHECK(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    if (std::fabs(y[i] - (a * x[i] + 7.0f)) > 1e-3f) {
      std::fprintf(stderr, "FAIL: %s: y[%d] = %g, expected %g\n", what.c_str(), i, y[i], a * x[i] + 7.0f);
      std::exit(1);
    }
  }
  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuMemFree(dy));
}

int main(int argc, char** argv) {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  int major = 0, minor = 0;
  CU_CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CU_CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  int ran = 0, cubins_ran = 0;
  for (int i = 1; i < argc; ++i) {
    std::string path = runfile(argv[i]);
    CUmodule module;
    CUresult loaded = cuModuleLoad(&module, path.c_str());
    if (loaded == CUDA_ERROR_NO_BINARY_FOR_GPU && ends_with(path, ".cubin")) {
      std::printf("skipped %s: a cubin for another arch than this GPU's sm_%d%d\n", argv[i], major, minor);
      continue;
    }
    CU_CHECK(loaded);
    run(module, argv[i]);
    CU_CHECK(cuModuleUnload(module));
    std::printf("ran %s\n", argv[i]);
    ++ran;
    if (ends_with(path, ".cubin")) ++cubins_ran;
  }
  if (ran < 3 || cubins_ran != 1) {
    std::fprintf(stderr, "FAIL: %d modules ran (%d cubins); expected the fatbinary, the PTX and this GPU's cubin\n", ran,
                 cubins_ran);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
