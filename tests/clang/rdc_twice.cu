// What rdc_kernel.cu uses from another translation unit, device-linked by nvlink.

__device__ float rdc_offset = 0.5f;

static __device__ float factor() { return 2.0f; }

__device__ float rdc_twice(float x) { return factor() * x; }
