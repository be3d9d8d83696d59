// A correct kernel, built with an unsupported host compiler by tests/e2e:reuse_test.
__global__ void kernel(int* out) { out[0] = 42; }
