// Compiles for every arch but sm_90: only the compute_90 device preprocess fails.
__global__ void k(int* p) { *p = 1; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#error "runner test: no sm_90 here"
#endif
