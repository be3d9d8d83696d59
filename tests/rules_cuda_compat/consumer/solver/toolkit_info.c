#include <stdio.h>

#if HAVE_CUDA_TOOLKIT
#include <cuda_runtime_api.h>
#endif

void toolkit_info(void) {
#if HAVE_CUDA_TOOLKIT
  printf("CUDA runtime headers %d, platform %s\n", CUDART_VERSION, TOOLKIT_PLATFORM);
#else
  printf("no CUDA toolkit, platform %s\n", TOOLKIT_PLATFORM);
#endif
}
