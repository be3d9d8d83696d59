// NVRTC (which loads nvrtc-builtins at run time) compiles a kernel to PTX for
// this GPU's arch; the driver API loads and launches it.
#include <cuda.h>
#include <nvrtc.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

static const char* kSource = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

int main() {
  CHECK(cuInit(0) == CUDA_SUCCESS);
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
  int major = 0, minor = 0;
  CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS);
  CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS);
  nvrtcProgram prog;
  CHECK(nvrtcCreateProgram(&prog, kSource, "saxpy.cu", 0, nullptr, nullptr) == NVRTC_SUCCESS);
  std::string arch = "--gpu-architecture=compute_" + std::to_string(major * 10 + minor);
  const char* opts[] = {arch.c_str()};
  nvrtcResult compiled = nvrtcCompileProgram(prog, 1, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  nvrtcGetProgramLog(prog, &log[0]);
  if (compiled != NVRTC_SUCCESS) std::fprintf(stderr, "%s\n", log.c_str());
  CHECK(compiled == NVRTC_SUCCESS);
  size_t ptx_size = 0;
  CHECK(nvrtcGetPTXSize(prog, &ptx_size) == NVRTC_SUCCESS);
  std::string ptx(ptx_size, '\0');
  CHECK(nvrtcGetPTX(prog, &ptx[0]) == NVRTC_SUCCESS);
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
  CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  CUmodule module;
  CUfunction saxpy;
  CHECK(cuModuleLoadData(&module, ptx.c_str()) == CUDA_SUCCESS);
  CHECK(cuModuleGetFunction(&saxpy, module, "saxpy") == CUDA_SUCCESS);
  int n = 4096;
  float a = 2.5f;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) { x[i] = 0.5f * i; y[i] = 1.0f; }
  CUdeviceptr dx, dy;
  CHECK(cuMemAlloc(&dx, n * sizeof(float)) == CUDA_SUCCESS);
  CHECK(cuMemAlloc(&dy, n * sizeof(float)) == CUDA_SUCCESS);
  CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)) == CUDA_SUCCESS);
  CHECK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)) == CUDA_SUCCESS);
  void* args[] = {&a, &dx, &dy, &n};
  CHECK(cuLaunchKernel(saxpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr) == CUDA_SUCCESS);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)) == CUDA_SUCCESS);
  for (int i = 0; i < n; ++i) CHECK(std::fabs(y[i] - (a * x[i] + 1.0f)) < 1e-4f);
  int vmajor = 0, vminor = 0;
  nvrtcVersion(&vmajor, &vminor);
  std::printf("nvrtc %d.%d: compiled saxpy for %s (%zu bytes of PTX), ran it on sm_%d%d\n", vmajor, vminor, arch.c_str(),
              ptx_size, major, minor);
  nvrtcDestroyProgram(&prog);
  std::printf("PASS\n");
  return 0;
}
