// With dup.cc in one target: both would compile into _cuda/<target>/dup.cc/.
__global__ void dup_cc_cu_kernel(int* x) { *x = 2; }
