// Defines dup_value; so does dup_b.cu: the device link must refuse.
__device__ int dup_value() { return 1; }
