// A cuda_library's public header that includes Thrust: C++ files that include
// it compile with the C++ toolchain, CCCL's directory coming with the library.
// (Its functions take no Thrust types: Thrust's ABI namespace holds
// __CUDA_ARCH_LIST__, which only nvcc defines, so a Thrust type in a call from
// host-compiled C++ into CUDA code does not link, with any build system.)
#pragma once

#include <thrust/device_vector.h>

// The sum of n copies of value, computed on the GPU with a device_vector.
int device_sum(int n, int value);
