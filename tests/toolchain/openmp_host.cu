// Host code of a .cu using OpenMP: nvcc's host compile with -fopenmp.
#include <omp.h>

#include <vector>

long host_sum_cu(const std::vector<int>& v) {
  long sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (long i = 0; i < static_cast<long>(v.size()); ++i) sum += v[i];
  return sum;
}
