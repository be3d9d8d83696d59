// cuBLAS SGEMM (C = alpha * A * B + beta * C, column-major) against a host GEMM.
#include <cublas_v2.h>

#include <cmath>
#include <vector>

#include "tests/libs/check.h"

int main() {
  const int m = 67, n = 45, k = 33;
  const float alpha = 1.5f, beta = -0.5f;
  std::vector<float> a(m * k), b(k * n), c(m * n), want(m * n);
  for (int i = 0; i < m * k; ++i) a[i] = std::sin(0.1f * i);
  for (int i = 0; i < k * n; ++i) b[i] = std::cos(0.07f * i);
  for (int i = 0; i < m * n; ++i) c[i] = 0.01f * (i % 17);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += double(a[i + p * m]) * b[p + j * k];
      want[i + j * m] = float(alpha * s + beta * c[i + j * m]);
    }
  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CHECK_EQ_STATUS(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  int version = 0;
  CHECK_EQ_STATUS(cublasGetVersion(handle, &version), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ_STATUS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m),
                  CUBLAS_STATUS_SUCCESS);
  CUDA_CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < m * n; ++i) worst = std::fmax(worst, std::fabs(c[i] - want[i]));
  std::printf("cublas %d: %dx%dx%d SGEMM, max |gpu - host| = %g\n", version, m, n, k, worst);
  CHECK(worst < 1e-3);
  cublasDestroy(handle);
  std::printf("PASS\n");
  return 0;
}
