/* A C source: compiled by the C++ toolchain's C compiler, as nvcc compiles a .c file. */
int cc_sources_c_helper(int x) { return x + 1; }
