// OpenMP through the C++ toolchain (issue 29 item 6): tools/bazelw's compilers
// link every library they link by default (here libgomp) against the C library
// they compile for. Parallel sum over all threads, in C++ and in a .cu's host
// code compiled with -fopenmp by nvcc's host compiler.
#include <omp.h>

#include <cstdio>
#include <vector>

long host_sum_cu(const std::vector<int>& v);  // openmp_host.cu

int main() {
  std::vector<int> v(100000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i % 7);
  long sum = 0;
  int threads = 0;
#pragma omp parallel reduction(+ : sum)
  {
#pragma omp single
    threads = omp_get_num_threads();
#pragma omp for
    for (long i = 0; i < static_cast<long>(v.size()); ++i) sum += v[i];
  }
  long expected = 0;
  for (int x : v) expected += x;
  long cu = host_sum_cu(v);
  std::printf("threads %d, sum %ld, .cu host sum %ld, expected %ld\n", threads, sum, cu, expected);
  return sum == expected && cu == expected && threads >= 1 ? 0 : 1;
}
