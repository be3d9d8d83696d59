// cuSPARSE: y = alpha * A x + beta * y with A in CSR form (cusparseSpMV),
// against the same product on the host.
#include <cusparse.h>

#include <cmath>
#include <vector>

#include "tests/libs/check.h"

int main() {
  // A tridiagonal-plus-corner matrix, rows x rows.
  const int rows = 500;
  std::vector<int> offsets{0}, cols;
  std::vector<float> vals;
  for (int r = 0; r < rows; ++r) {
    for (int c : {r - 1, r, r + 1, rows - 1}) {
      if (c < 0 || c >= rows || (c == rows - 1 && r >= rows - 2)) continue;
      cols.push_back(c);
      vals.push_back(c == r ? 4.0f : -1.0f + 0.001f * r);
    }
    offsets.push_back(cols.size());
  }
  const int nnz = cols.size();
  std::vector<float> x(rows), y(rows), want(rows);
  for (int i = 0; i < rows; ++i) { x[i] = std::sin(0.01f * i); y[i] = 1.0f; }
  const float alpha = 2.0f, beta = 0.5f;
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int p = offsets[r]; p < offsets[r + 1]; ++p) s += double(vals[p]) * x[cols[p]];
    want[r] = float(alpha * s + beta * y[r]);
  }
  int *d_off, *d_cols;
  float *d_vals, *d_x, *d_y;
  CUDA_CHECK(cudaMalloc(&d_off, offsets.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_cols, nnz * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_vals, nnz * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_x, rows * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, rows * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_off, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_cols, cols.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_vals, vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_x, x.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_y, y.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
  cusparseHandle_t handle;
  CHECK_EQ_STATUS(cusparseCreate(&handle), CUSPARSE_STATUS_SUCCESS);
  cusparseSpMatDescr_t a;
  cusparseDnVecDescr_t vx, vy;
  CHECK_EQ_STATUS(cusparseCreateCsr(&a, rows, rows, nnz, d_off, d_cols, d_vals, CUSPARSE_INDEX_32I,
                                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
                  CUSPARSE_STATUS_SUCCESS);
  CHECK_EQ_STATUS(cusparseCreateDnVec(&vx, rows, d_x, CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
  CHECK_EQ_STATUS(cusparseCreateDnVec(&vy, rows, d_y, CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
  size_t bytes = 0;
  CHECK_EQ_STATUS(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy,
                                          CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
                  CUSPARSE_STATUS_SUCCESS);
  void* buffer = nullptr;
  CUDA_CHECK(cudaMalloc(&buffer, bytes ? bytes : 1));
  CHECK_EQ_STATUS(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F,
                               CUSPARSE_SPMV_ALG_DEFAULT, buffer),
                  CUSPARSE_STATUS_SUCCESS);
  CUDA_CHECK(cudaMemcpy(y.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < rows; ++i) worst = std::fmax(worst, std::fabs(y[i] - want[i]));
  int version = 0;
  cusparseGetVersion(handle, &version);
  std::printf("cusparse %d: SpMV %dx%d, nnz %d, max |gpu - host| = %g\n", version, rows, rows, nnz, worst);
  CHECK(worst < 1e-4);
  cusparseDestroySpMat(a);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  cusparseDestroy(handle);
  std::printf("PASS\n");
  return 0;
}
