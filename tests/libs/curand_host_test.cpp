// cuRAND's host API from host-only C++ (a .cpp over @cuda//:curand): uniform
// and normal numbers generated on the GPU, checked by their sample statistics.
// (curand_test.cu also covers the device API, which needs nvcc.)
#include <curand.h>

#include <cmath>
#include <vector>

#include "tests/libs/check.h"

static void stats(const std::vector<float>& v, double* mean, double* var) {
  double s = 0, s2 = 0;
  for (float x : v) {
    s += x;
    s2 += double(x) * x;
  }
  *mean = s / v.size();
  *var = s2 / v.size() - *mean * *mean;
}

int main() {
  const int n = 1 << 20;
  float* d;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
  std::vector<float> h(n);
  curandGenerator_t gen;
  CHECK_EQ_STATUS(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_XORWOW), CURAND_STATUS_SUCCESS);
  CHECK_EQ_STATUS(curandSetPseudoRandomGeneratorSeed(gen, 4321), CURAND_STATUS_SUCCESS);
  double mean, var;
  CHECK_EQ_STATUS(curandGenerateUniform(gen, d, n), CURAND_STATUS_SUCCESS);
  CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  stats(h, &mean, &var);
  std::printf("uniform: mean %.5f (1/2), variance %.5f (1/12 = %.5f)\n", mean, var, 1.0 / 12);
  CHECK(std::fabs(mean - 0.5) < 0.003 && std::fabs(var - 1.0 / 12) < 0.002);
  CHECK_EQ_STATUS(curandGenerateNormal(gen, d, n, -1.0f, 0.5f), CURAND_STATUS_SUCCESS);
  CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  stats(h, &mean, &var);
  std::printf("normal(-1, 0.5): mean %.4f, variance %.4f (0.25)\n", mean, var);
  CHECK(std::fabs(mean + 1.0) < 0.005 && std::fabs(var - 0.25) < 0.005);
  int version = 0;
  CHECK_EQ_STATUS(curandGetVersion(&version), CURAND_STATUS_SUCCESS);
  std::printf("curand %d\n", version);
  curandDestroyGenerator(gen);
  CUDA_CHECK(cudaFree(d));
  std::printf("PASS\n");
  return 0;
}
