#include "tests/rdc/geom/util.cuh"

static __device__ float local_factor() { return 0.5f; }
static __device__ int local_counter;

__device__ float rdc_offset(float x) {
  atomicAdd(&local_counter, 1);
  return x + local_factor();
}
