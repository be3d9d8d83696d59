// A host-only program over @local_cuda//:cublas alone.
#include <cublas_v2.h>

#include <cstdio>

int main() {
  cublasHandle_t handle;
  cublasStatus_t status = cublasCreate(&handle);
  std::printf("cublasCreate: %d\n", int(status));
  if (status == CUBLAS_STATUS_SUCCESS) cublasDestroy(handle);
  return 0;
}
