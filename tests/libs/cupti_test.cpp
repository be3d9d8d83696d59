// CUPTI from host-only C++ (a .cpp over @cuda//:cupti): a callback subscribed
// to the driver API sees the test's own cuMemAlloc and cuMemFree, entry and
// exit, and nothing after it unsubscribes.
#include <cuda.h>
#include <cupti.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)
#define CU_CHECK(expr) CHECK((expr) == CUDA_SUCCESS)
#define CUPTI_CHECK(expr) CHECK((expr) == CUPTI_SUCCESS)

struct Counts {
  int alloc_enter = 0, alloc_exit = 0, free_enter = 0, free_exit = 0;
};

static void CUPTIAPI on_driver_call(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const void* cbdata) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  Counts* counts = static_cast<Counts*>(userdata);
  const CUpti_CallbackData* data = static_cast<const CUpti_CallbackData*>(cbdata);
  bool enter = data->callbackSite == CUPTI_API_ENTER;
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2) ++(enter ? counts->alloc_enter : counts->alloc_exit);
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2) ++(enter ? counts->free_enter : counts->free_exit);
}

int main() {
  uint32_t version = 0;
  CUPTI_CHECK(cuptiGetVersion(&version));
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));

  Counts counts;
  CUpti_SubscriberHandle subscriber;
  CUPTI_CHECK(cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_driver_call, &counts));
  CUPTI_CHECK(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API));
  CUdeviceptr p;
  CU_CHECK(cuMemAlloc(&p, 1 << 20));
  CU_CHECK(cuMemFree(p));
  CUPTI_CHECK(cuptiUnsubscribe(subscriber));
  CU_CHECK(cuMemAlloc(&p, 1 << 20));  // not seen: unsubscribed
  CU_CHECK(cuMemFree(p));

  std::printf("cupti %u: cuMemAlloc entered %d, exited %d; cuMemFree entered %d, exited %d\n", version,
              counts.alloc_enter, counts.alloc_exit, counts.free_enter, counts.free_exit);
  CHECK(counts.alloc_enter == 1 && counts.alloc_exit == 1);
  CHECK(counts.free_enter == 1 && counts.free_exit == 1);
  std::printf("PASS\n");
  return 0;
}
