// The driver API (cuda.h, linked against the link stub of libcuda.so.1) and
// NVML (nvml.h, the stub of libnvidia-ml.so.1): the binary must load the
// driver's real libraries at run time and see the same GPUs through both.
// The functions whose declarations the stubs once missed are called too:
// cuProfilerStart/Stop (cudaProfiler.h) and nvmlErrorString (declared
// `const DECLDIR char*`): a stub without them fails this binary's link.
#include <cuda.h>
#include <cudaProfiler.h>
#include <nvml.h>

#include <cstring>

#include <cstdio>
#include <cstdlib>

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

int main() {
  CHECK(cuInit(0) == CUDA_SUCCESS);
  int driver = 0, count = 0;
  CHECK(cuDriverGetVersion(&driver) == CUDA_SUCCESS);
  CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS);
  CHECK(count >= 1);
  CUdevice dev;
  char name[256];
  CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
  CHECK(cuDeviceGetName(name, sizeof(name), dev) == CUDA_SUCCESS);
  size_t bytes = 0;
  CHECK(cuDeviceTotalMem(&bytes, dev) == CUDA_SUCCESS);
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
  CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, 1 << 20) == CUDA_SUCCESS);
  CHECK(cuMemsetD32(p, 7u, 1 << 18) == CUDA_SUCCESS);
  unsigned int word = 0;
  CHECK(cuMemcpyDtoH(&word, p + 4096, sizeof(word)) == CUDA_SUCCESS);
  CHECK(word == 7u);
  CHECK(cuMemFree(p) == CUDA_SUCCESS);
  CUresult started = cuProfilerStart();  // no profiler attached: success or CUDA_ERROR_PROFILER_DISABLED
  CHECK(started == CUDA_SUCCESS || started == CUDA_ERROR_PROFILER_DISABLED);
  CUresult stopped = cuProfilerStop();
  CHECK(stopped == CUDA_SUCCESS || stopped == CUDA_ERROR_PROFILER_DISABLED);
  CHECK(nvmlInit() == NVML_SUCCESS);
  unsigned int nvml_count = 0;
  CHECK(nvmlDeviceGetCount(&nvml_count) == NVML_SUCCESS);
  char nvml_driver[96];
  CHECK(nvmlSystemGetDriverVersion(nvml_driver, sizeof(nvml_driver)) == NVML_SUCCESS);
  std::printf("driver API %d: %d device(s), device 0 %s with %zu MiB; NVML: %u device(s), driver %s\n", driver, count,
              name, bytes >> 20, nvml_count, nvml_driver);
  CHECK(nvml_count >= (unsigned)count);
  const char* success = nvmlErrorString(NVML_SUCCESS);
  CHECK(success != nullptr && std::strlen(success) > 0);
  CHECK(nvmlShutdown() == NVML_SUCCESS);
  std::printf("PASS\n");
  return 0;
}
