// Which CUDA a binary was built with, and that it runs on this machine's driver:
// the runtime linked in (cudaRuntimeGetVersion) must be the one whose headers
// compiled it (CUDART_VERSION), and a kernel built for this GPU must run.
// Prints "CUDA runtime 12.4 (compiled with 12.4), driver supports 13.0, ...".
#include <cstdio>
#include <cuda_runtime.h>

__global__ void write_answer(int* out) { *out = 42; }

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      std::printf("FAIL: %s: %s\n", #call, cudaGetErrorString(e));                         \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

int main() {
  int runtime = 0, driver = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  CHECK(cudaDriverGetVersion(&driver));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("CUDA runtime %d.%d (compiled with %d.%d), driver supports %d.%d, GPU %s (sm_%d%d)\n", runtime / 1000,
              (runtime % 1000) / 10, CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10, driver / 1000,
              (driver % 1000) / 10, prop.name, prop.major, prop.minor);
  if (runtime != CUDART_VERSION) {
    std::printf("FAIL: the runtime linked in is not the one the headers are from\n");
    return 1;
  }
  int* out = nullptr;
  CHECK(cudaMalloc(&out, sizeof(int)));
  write_answer<<<1, 1>>>(out);
  CHECK(cudaGetLastError());
  int answer = 0;
  CHECK(cudaMemcpy(&answer, out, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(out));
  if (answer != 42) {
    std::printf("FAIL: the kernel wrote %d\n", answer);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
