// A C++ source next to the .cu files: compiled by the C++ toolchain.
int analysis_test_helper(int x) { return x + 1; }
