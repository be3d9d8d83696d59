// A second source of :two_sources: each source is its own module.
extern "C" __global__ void other_kernel(int* x) { *x = 1; }
