// Next to same_stem.cc in one target: each compiles into its own directory.
__global__ void same_stem_cu_kernel(int* x) { *x = 1; }
