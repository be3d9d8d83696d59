// cuRAND: the host API's uniform and normal generators, and the device API
// (curand_kernel.h), checked by their sample statistics.
#include <curand.h>
#include <curand_kernel.h>

#include <cmath>
#include <vector>

#include "tests/libs/check.h"

__global__ void device_normals(unsigned long long seed, float* out, int per_thread) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, id, 0, &state);
  for (int i = 0; i < per_thread; ++i) out[id * per_thread + i] = curand_normal(&state);
}

static void stats(const std::vector<float>& v, double* mean, double* var) {
  double s = 0, s2 = 0;
  for (float x : v) { s += x; s2 += double(x) * x; }
  *mean = s / v.size();
  *var = s2 / v.size() - *mean * *mean;
}

int main() {
  const int n = 1 << 20;
  float* d;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
  std::vector<float> h(n);
  curandGenerator_t gen;
  CHECK_EQ_STATUS(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10), CURAND_STATUS_SUCCESS);
  CHECK_EQ_STATUS(curandSetPseudoRandomGeneratorSeed(gen, 1234), CURAND_STATUS_SUCCESS);
  double mean, var;
  CHECK_EQ_STATUS(curandGenerateUniform(gen, d, n), CURAND_STATUS_SUCCESS);
  CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  stats(h, &mean, &var);
  std::printf("uniform: mean %.5f (1/2), variance %.5f (1/12 = %.5f)\n", mean, var, 1.0 / 12);
  CHECK(std::fabs(mean - 0.5) < 0.003 && std::fabs(var - 1.0 / 12) < 0.002);
  for (float x : h) CHECK(x > 0.0f && x <= 1.0f);
  CHECK_EQ_STATUS(curandGenerateNormal(gen, d, n, 2.0f, 3.0f), CURAND_STATUS_SUCCESS);
  CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  stats(h, &mean, &var);
  std::printf("normal(2, 3): mean %.4f, variance %.4f (9)\n", mean, var);
  CHECK(std::fabs(mean - 2.0) < 0.02 && std::fabs(var - 9.0) < 0.1);
  device_normals<<<256, 256>>>(42, d, n / (256 * 256));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  stats(h, &mean, &var);
  std::printf("device API curand_normal: mean %.4f, variance %.4f (1)\n", mean, var);
  CHECK(std::fabs(mean) < 0.01 && std::fabs(var - 1.0) < 0.01);
  curandDestroyGenerator(gen);
  std::printf("PASS\n");
  return 0;
}
