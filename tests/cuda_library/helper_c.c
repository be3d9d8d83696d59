/* A C source: the C++ toolchain compiles it, never nvcc, so its target compiles nothing for its archs. */
int analysis_test_c_helper(int x) { return x + 2; }
