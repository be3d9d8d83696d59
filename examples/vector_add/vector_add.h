#ifndef RULES_CUDA_STAGES_EXAMPLES_VECTOR_ADD_H_
#define RULES_CUDA_STAGES_EXAMPLES_VECTOR_ADD_H_

#include <cuda_runtime.h>

// out[i] = a[i] + b[i] for i < n, computed on the current CUDA device.
cudaError_t vector_add(const float* a, const float* b, float* out, int n);

#endif  // RULES_CUDA_STAGES_EXAMPLES_VECTOR_ADD_H_
