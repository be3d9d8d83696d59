#include "tests/e2e/broken/no_such_header.h"  // (tests/e2e:reuse_test)
__global__ void kernel(int* out) { out[0] = 1; }
