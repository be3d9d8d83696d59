// A C++ source next to the .cu files: CUDA too (nvcc -x cu), compiled in stages.
int analysis_test_helper(int x) { return x + 1; }
