// Shared by the run-time compilation tests (nvJitLink, nvPTXCompiler): NVRTC
// makes PTX or LTO IR of a saxpy kernel for this GPU, the library under test
// turns it into a cubin, and the driver API loads and runs that cubin.
#pragma once
#include <cuda.h>
#include <nvrtc.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

#define CU_CHECK(expr) CHECK((expr) == CUDA_SUCCESS)

inline const char* kSaxpySource = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

// The compute capability of device 0 as NN (e.g. 90), after cuInit and a current primary context.
inline int init_device(CUdevice* dev) {
  CU_CHECK(cuInit(0));
  CU_CHECK(cuDeviceGet(dev, 0));
  int major = 0, minor = 0;
  CU_CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, *dev));
  CU_CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, *dev));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, *dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  return major * 10 + minor;
}

// kSaxpySource compiled by NVRTC for compute_<arch>: PTX, or with lto, LTO IR (-dlto).
inline std::vector<char> nvrtc_compile(int arch, bool lto) {
  nvrtcProgram prog;
  CHECK(nvrtcCreateProgram(&prog, kSaxpySource, "saxpy.cu", 0, nullptr, nullptr) == NVRTC_SUCCESS);
  std::string gpu = "--gpu-architecture=compute_" + std::to_string(arch);
  std::vector<const char*> opts = {gpu.c_str()};
  if (lto) opts.push_back("-dlto");
  nvrtcResult compiled = nvrtcCompileProgram(prog, int(opts.size()), opts.data());
  if (compiled != NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, &log[0]);
    std::fprintf(stderr, "%s\n", log.c_str());
  }
  CHECK(compiled == NVRTC_SUCCESS);
  size_t size = 0;
  std::vector<char> out;
  if (lto) {
    CHECK(nvrtcGetLTOIRSize(prog, &size) == NVRTC_SUCCESS);
    out.resize(size);
    CHECK(nvrtcGetLTOIR(prog, out.data()) == NVRTC_SUCCESS);
  } else {
    CHECK(nvrtcGetPTXSize(prog, &size) == NVRTC_SUCCESS);
    out.resize(size);
    CHECK(nvrtcGetPTX(prog, out.data()) == NVRTC_SUCCESS);
  }
  nvrtcDestroyProgram(&prog);
  return out;
}

// Loads `cubin`, runs saxpy on 4096 elements and checks the result on the host.
inline void run_saxpy_cubin(const std::vector<char>& cubin) {
  CUmodule module;
  CUfunction saxpy;
  CU_CHECK(cuModuleLoadData(&module, cubin.data()));
  CU_CHECK(cuModuleGetFunction(&saxpy, module, "saxpy"));
  int n = 4096;
  float a = 1.5f;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.25f * i;
    y[i] = 2.0f;
  }
  CUdeviceptr dx, dy;
  CU_CHECK(cuMemAlloc(&dx, n * sizeof(float)));
  CU_CHECK(cuMemAlloc(&dy, n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
  void* args[] = {&a, &dx, &dy, &n};
  CU_CHECK(cuLaunchKernel(saxpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CU_CHECK(cuCtxSynchronize());
  CU_CHECK(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) CHECK(std::fabs(y[i] - (a * x[i] + 2.0f)) < 1e-4f);
  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuMemFree(dy));
  CU_CHECK(cuModuleUnload(module));
}
