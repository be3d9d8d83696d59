#pragma once
// Defined in mathlib/util.cu; called from device code in other targets (rdc).
__device__ float rdc_scale(float x);
// A device variable defined in mathlib/util.cu.
extern __device__ int rdc_scale_calls;
