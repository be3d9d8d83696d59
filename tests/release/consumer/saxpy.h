#ifndef CONSUMER_SAXPY_H_
#define CONSUMER_SAXPY_H_

#include <cuda_runtime_api.h>

// a * x + y, computed on the host by the same function the kernel uses.
float saxpy_host(float a, float x, float y);

// y[i] = a * x[i] + y[i] on the GPU; x and y are host arrays of n floats.
cudaError_t saxpy(int n, float a, const float* x, float* y);

#endif  // CONSUMER_SAXPY_H_
