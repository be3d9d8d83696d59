#include "tests/cc_sources/device_sum.h"

#include <thrust/reduce.h>

int device_sum(int n, int value) {
  thrust::device_vector<int> v(n, value);
  return thrust::reduce(v.begin(), v.end());
}
