__device__ int dup_value() { return 2; }
