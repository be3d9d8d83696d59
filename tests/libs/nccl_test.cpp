// NCCL on one GPU: an all-reduce (sum) over a communicator of one rank, in
// place and out of place, plus a broadcast.
#include <nccl.h>

#include <vector>

#include "tests/libs/check.h"

int main() {
  int version = 0;
  CHECK_EQ_STATUS(ncclGetVersion(&version), ncclSuccess);
  const int n = 4096;
  std::vector<float> h(n), out(n);
  for (int i = 0; i < n; ++i) h[i] = 0.5f * i;
  float *send, *recv;
  CUDA_CHECK(cudaMalloc(&send, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&recv, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(send, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  ncclComm_t comm;
  int dev = 0;
  CHECK_EQ_STATUS(ncclCommInitAll(&comm, 1, &dev), ncclSuccess);
  int count = 0;
  CHECK_EQ_STATUS(ncclCommCount(comm, &count), ncclSuccess);
  CHECK(count == 1);
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CHECK_EQ_STATUS(ncclAllReduce(send, recv, n, ncclFloat, ncclSum, comm, stream), ncclSuccess);
  CHECK_EQ_STATUS(ncclAllReduce(send, send, n, ncclFloat, ncclSum, comm, stream), ncclSuccess);
  CHECK_EQ_STATUS(ncclBroadcast(send, recv, n, ncclFloat, 0, comm, stream), ncclSuccess);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaMemcpy(out.data(), recv, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(out[i] == h[i]);
  std::printf("nccl %d: all-reduce and broadcast of %d floats over 1 rank\n", version, n);
  ncclCommDestroy(comm);
  std::printf("PASS\n");
  return 0;
}
