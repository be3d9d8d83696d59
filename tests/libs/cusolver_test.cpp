// cuSOLVER: Cholesky factorization (potrf) and solve (potrs) of a symmetric
// positive definite system; the residual |A x - b| is checked on the host.
#include <cusolverDn.h>

#include <cmath>
#include <vector>

#include "tests/libs/check.h"

int main() {
  const int n = 64;
  std::vector<double> a(n * n), b(n), x(n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) a[i + j * n] = (i == j ? 2.0 * n : 0.0) + 1.0 / (1 + i + j);
  for (int i = 0; i < n; ++i) b[i] = std::cos(0.2 * i);
  double *da, *db;
  int* info;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&info, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(double), cudaMemcpyHostToDevice));
  cusolverDnHandle_t handle;
  CHECK_EQ_STATUS(cusolverDnCreate(&handle), CUSOLVER_STATUS_SUCCESS);
  int lwork = 0;
  CHECK_EQ_STATUS(cusolverDnDpotrf_bufferSize(handle, CUBLAS_FILL_MODE_LOWER, n, da, n, &lwork), CUSOLVER_STATUS_SUCCESS);
  double* work;
  CUDA_CHECK(cudaMalloc(&work, lwork * sizeof(double)));
  CHECK_EQ_STATUS(cusolverDnDpotrf(handle, CUBLAS_FILL_MODE_LOWER, n, da, n, work, lwork, info), CUSOLVER_STATUS_SUCCESS);
  int h_info = -1;
  CUDA_CHECK(cudaMemcpy(&h_info, info, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(h_info == 0);
  CHECK_EQ_STATUS(cusolverDnDpotrs(handle, CUBLAS_FILL_MODE_LOWER, n, 1, da, n, db, n, info), CUSOLVER_STATUS_SUCCESS);
  CUDA_CHECK(cudaMemcpy(&h_info, info, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(h_info == 0);
  CUDA_CHECK(cudaMemcpy(x.data(), db, n * sizeof(double), cudaMemcpyDeviceToHost));
  double residual = 0;
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += a[i + j * n] * x[j];
    residual = std::fmax(residual, std::fabs(s - b[i]));
  }
  int major = 0, minor = 0, patch = 0;
  cusolverGetProperty(MAJOR_VERSION, &major);
  cusolverGetProperty(MINOR_VERSION, &minor);
  cusolverGetProperty(PATCH_LEVEL, &patch);
  std::printf("cusolver %d.%d.%d: Cholesky of %dx%d, max |A x - b| = %g\n", major, minor, patch, n, n, residual);
  CHECK(residual < 1e-10);
  cusolverDnDestroy(handle);
  std::printf("PASS\n");
  return 0;
}
