// CUDA in a .cc file: a kernel and Thrust's device algorithms.
#include "kernels.h"

#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <vendor.h>

__global__ void fill(int* x, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

int fill_and_sum(int n) {
  thrust::device_vector<int> v(n);
  fill<<<(n + 127) / 128, 128>>>(thrust::raw_pointer_cast(v.data()), n, vendor_fill_value());
  return thrust::reduce(v.begin(), v.end());
}
