#ifndef RULES_CUDA_STAGES_EXAMPLES_TEMPLATED_SCALE_CUH_
#define RULES_CUDA_STAGES_EXAMPLES_TEMPLATED_SCALE_CUH_

#include <cuda_runtime.h>

// out[i] = in[i] * Factor, for any arithmetic T, on the current device.
template <typename T, int Factor>
cudaError_t scale(const T* in, T* out, int n);

#endif  // RULES_CUDA_STAGES_EXAMPLES_TEMPLATED_SCALE_CUH_
