// Relocatable device code that two rdc libraries (shared_d, shared_e) both use.
__device__ int shared_twice(int x) { return 2 * x; }
