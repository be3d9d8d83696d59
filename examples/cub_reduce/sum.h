#ifndef RULES_CUDA_STAGES_EXAMPLES_CUB_REDUCE_SUM_H_
#define RULES_CUDA_STAGES_EXAMPLES_CUB_REDUCE_SUM_H_

#include <cuda_runtime.h>

// Sums n ints on the current device with cub::DeviceReduce::Sum.
cudaError_t device_sum(const int* values, int n, long long* sum);

// Sums n ints with one cub::BlockReduce per block, then the block sums on the host.
cudaError_t block_sum(const int* values, int n, long long* sum);

#endif  // RULES_CUDA_STAGES_EXAMPLES_CUB_REDUCE_SUM_H_
