// Next to same_stem.cu in one target: each compiles into its own directory.
__global__ void same_stem_cc_kernel(int* x) { *x = 2; }
