#pragma once
__device__ float rdc_offset(float x);
