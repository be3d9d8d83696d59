// cuFFT: a complex-to-complex forward transform checked against a host DFT,
// then the inverse, which must give back the input (times n).
#include <cufft.h>

#include <cmath>
#include <vector>

#include "tests/libs/check.h"

int main() {
  const int n = 96;
  std::vector<cufftComplex> x(n), y(n), back(n);
  for (int i = 0; i < n; ++i) x[i] = make_cuFloatComplex(std::sin(0.3f * i) + 0.25f, std::cos(0.11f * i));
  cufftComplex* d;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(cufftComplex)));
  CUDA_CHECK(cudaMemcpy(d, x.data(), n * sizeof(cufftComplex), cudaMemcpyHostToDevice));
  cufftHandle plan;
  CHECK_EQ_STATUS(cufftPlan1d(&plan, n, CUFFT_C2C, 1), CUFFT_SUCCESS);
  CHECK_EQ_STATUS(cufftExecC2C(plan, d, d, CUFFT_FORWARD), CUFFT_SUCCESS);
  CUDA_CHECK(cudaMemcpy(y.data(), d, n * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
  double worst_dft = 0;
  for (int k = 0; k < n; ++k) {
    double re = 0, im = 0;
    for (int j = 0; j < n; ++j) {
      double a = -2 * M_PI * j * k / n;
      re += x[j].x * std::cos(a) - x[j].y * std::sin(a);
      im += x[j].x * std::sin(a) + x[j].y * std::cos(a);
    }
    worst_dft = std::fmax(worst_dft, std::hypot(y[k].x - re, y[k].y - im));
  }
  CHECK_EQ_STATUS(cufftExecC2C(plan, d, d, CUFFT_INVERSE), CUFFT_SUCCESS);
  CUDA_CHECK(cudaMemcpy(back.data(), d, n * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
  double worst_round = 0;
  for (int i = 0; i < n; ++i)
    worst_round = std::fmax(worst_round, std::hypot(back[i].x / n - x[i].x, back[i].y / n - x[i].y));
  int version = 0;
  cufftGetVersion(&version);
  std::printf("cufft %d: n=%d, max |fft - dft| = %g, max |ifft(fft(x))/n - x| = %g\n", version, n, worst_dft, worst_round);
  CHECK(worst_dft < 1e-3);
  CHECK(worst_round < 1e-5);
  cufftDestroy(plan);
  std::printf("PASS\n");
  return 0;
}
