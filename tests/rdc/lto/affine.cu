#include "tests/rdc/lto/ops.cuh"
__device__ float lto_affine(float x) { return 2.0f * x + 1.0f; }
