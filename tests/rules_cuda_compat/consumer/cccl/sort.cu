#include <cub/device/device_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/sort.h>

#include "sort.h"

long long sort_and_sum(std::vector<int>& values) {
  thrust::device_vector<int> d(values.begin(), values.end());
  thrust::sort(d.begin(), d.end());
  thrust::copy(d.begin(), d.end(), values.begin());
  thrust::device_vector<long long> sum(1);
  size_t bytes = 0;
  cub::DeviceReduce::Sum(nullptr, bytes, thrust::raw_pointer_cast(d.data()), thrust::raw_pointer_cast(sum.data()),
                         static_cast<int>(d.size()));
  thrust::device_vector<char> temp(bytes);
  cub::DeviceReduce::Sum(thrust::raw_pointer_cast(temp.data()), bytes, thrust::raw_pointer_cast(d.data()),
                         thrust::raw_pointer_cast(sum.data()), static_cast<int>(d.size()));
  return sum[0];
}
