#pragma once
// Scales n floats by KERNEL_SCALE on the GPU; returns 0 on success.
int scale_on_gpu(float* data, int n);
