int broken = 1 int next = 2;  // a missing ";" on line 1 (tests/e2e:reuse_test)
__global__ void kernel(int* out) { out[0] = broken + next; }
