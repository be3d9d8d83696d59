#include <cstdio>
#ifdef CUDA_ENABLED
#include "kernel.h"
#endif

int main() {
#if defined(CUDA_ENABLED)
  std::printf("CUDA_ENABLED: block size %d\n", kernel_block_size());
  return kernel_block_size() == 128 ? 0 : 1;
#elif defined(CUDA_NOT_ENABLED)
  std::printf("CUDA_NOT_ENABLED\n");
  return 0;
#else
#error "neither CUDA_ENABLED nor CUDA_NOT_ENABLED"
#endif
}
