// NVTX 3 ranges, marks and a domain around GPU work, with the profiler
// control API (cuda_profiler_api.h), from host-only C++. Without a tool
// attached NVTX calls are cheap no-ops that report "no push/pop tracking";
// under Nsight Systems the ranges appear on the timeline. The work's result
// is checked either way.
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>

#include "tests/libs/check.h"

int main() {
  const int n = 1000;
  int* d;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
  nvtxDomainHandle_t domain = nvtxDomainCreateA("rules_cuda_stages");
  nvtxEventAttributes_t attrs = {};
  attrs.version = NVTX_VERSION;
  attrs.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attrs.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attrs.message.ascii = "memset";
  CUDA_CHECK(cudaProfilerStart());
  int outer = nvtxRangePushA("nvtx_test");
  nvtxMarkA("before launch");
  nvtxRangeId_t id = nvtxDomainRangeStartEx(domain, &attrs);
  CUDA_CHECK(cudaMemset(d, 0x01, n * sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());
  nvtxDomainRangeEnd(domain, id);
  int popped = nvtxRangePop();
  CUDA_CHECK(cudaProfilerStop());
  nvtxDomainDestroy(domain);
  int h[n];
  CUDA_CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(h[i] == 0x01010101);
  std::printf("nvtx %d: push returned %d, pop returned %d (a tool attached: levels; none: negative)\n", NVTX_VERSION,
              outer, popped);
  CHECK((outer >= 0) == (popped >= 0));
  std::printf("PASS\n");
  return 0;
}
