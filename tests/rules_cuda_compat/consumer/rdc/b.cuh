#pragma once
// Relocatable device code of b.cu, used from a.cu.
__device__ float b_affine(float x);
extern __device__ float b_offset;
