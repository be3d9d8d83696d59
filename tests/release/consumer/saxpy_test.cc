// Host checks of the staged build, always; the kernel only where a GPU is.
#include <cstdio>
#include <vector>

#include "saxpy.h"

int main() {
  int failures = 0;

  // Host code of saxpy.cu (cudafe++'s host side, compiled by the host compiler).
  if (saxpy_host(2.0f, 3.0f, 4.0f) != 10.0f) {
    std::printf("FAIL saxpy_host(2, 3, 4) = %g, not 10\n", saxpy_host(2.0f, 3.0f, 4.0f));
    ++failures;
  }

  // The CUDA runtime the toolkit's headers describe is the one linked in.
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess || runtime != CUDART_VERSION) {
    std::printf("FAIL runtime version %d, headers say %d\n", runtime, CUDART_VERSION);
    ++failures;
  }
  std::printf("host checks %s (CUDA runtime %d)\n", failures ? "FAILED" : "passed", runtime);

  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("no GPU (%s): kernel not run\n", err != cudaSuccess ? cudaGetErrorName(err) : "0 devices");
  } else {
    const int n = 1000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = static_cast<float>(i);
      y[i] = 1.0f;
    }
    err = saxpy(n, 2.0f, x.data(), y.data());
    if (err != cudaSuccess) {
      std::printf("FAIL saxpy: %s\n", cudaGetErrorString(err));
      ++failures;
    } else {
      for (int i = 0; i < n; ++i) {
        if (y[i] != saxpy_host(2.0f, x[i], 1.0f)) {
          std::printf("FAIL y[%d] = %g\n", i, y[i]);
          ++failures;
          break;
        }
      }
      std::printf("kernel %s on %d GPU(s)\n", failures ? "FAILED" : "passed", devices);
    }
  }
  std::printf("%s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
