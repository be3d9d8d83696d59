#ifndef TESTS_GPU_RUNTIME_FROM_C_H_
#define TESTS_GPU_RUNTIME_FROM_C_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Multiplies n floats in device memory by factor (a cuda_library's kernel). */
int scale_on_device(float* device_data, int n, float factor);

/* Multiplies n floats in host memory by factor on the GPU: C code calling the
   CUDA runtime (cudaMalloc, cudaMemcpy, ...). Returns 0 on success, else the
   cudaError_t of the call that failed. */
int scale_on_gpu(float* host_data, int n, float factor);

#ifdef __cplusplus
}
#endif

#endif
