// With dup.cc.cu in one target: both would compile into _cuda/<target>/dup.cc/.
__global__ void dup_cc_kernel(int* x) { *x = 1; }
