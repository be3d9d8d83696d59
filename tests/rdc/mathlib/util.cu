#include "tests/rdc/mathlib/util.cuh"

// Same names as in geom/util.cu: file-local device symbols of two TUs named
// util.cu, told apart in the link only by their module ids.
static __device__ float local_factor() { return 3.0f; }
static __device__ int local_counter;

__device__ int rdc_scale_calls;

__device__ float rdc_scale(float x) {
  atomicAdd(&local_counter, 1);
  atomicAdd(&rdc_scale_calls, 1);
  return x * local_factor();
}
