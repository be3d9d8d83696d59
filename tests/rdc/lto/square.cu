#include "tests/rdc/lto/ops.cuh"
__device__ float lto_square(float x) { return x * x; }
