// Kernels in C++ sources (.cc, .cpp, .cxx) of cuda_library / cuda_objects,
// compiled as CUDA as rules_cuda compiles them.
#pragma once

// The pattern of projects whose device code hides from a plain C++ compiler:
// compiled by gcc, every CUDA_CALLABLE function is host-only and the kernels
// below are gone, so these rules must never hand such a file to gcc.
#ifdef __CUDACC__
#define CUDA_CALLABLE __host__ __device__
#else
#define CUDA_CALLABLE
#endif

// Rounds x[i] * a for i < n on the GPU (kernel in scale.cc). Returns 1 if
// it launched a kernel, 0 if the object was built without device code.
int cc_scale_on_device(float* x, int n, float a);

// y[i] += a * x[i] on the GPU (kernel in axpy.cpp, a cuda_objects source).
// Returns 1 if it launched a kernel, 0 without device code.
int cpp_axpy_on_device(float* y, const float* x, int n, float a);

// x[i] = i * i on the GPU (kernel in squares.cxx, compiled with staged = False).
// Returns 1 if it launched a kernel, 0 without device code.
int cxx_squares_on_device(float* x, int n);
