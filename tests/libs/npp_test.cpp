// NPP from host-only C++ (a .cpp over @cuda//:npp): a signal sum (npps) and
// an image threshold (nppi), each checked on the host.
#include <npp.h>

#include <cmath>
#include <vector>

#include "tests/libs/check.h"

static NppStreamContext stream_context() {
  NppStreamContext ctx = {};
  ctx.hStream = 0;
  CUDA_CHECK(cudaGetDevice(&ctx.nCudaDeviceId));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, ctx.nCudaDeviceId));
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  CUDA_CHECK(cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor,
                                    ctx.nCudaDeviceId));
  CUDA_CHECK(cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor,
                                    ctx.nCudaDeviceId));
  CUDA_CHECK(cudaStreamGetFlags(ctx.hStream, &ctx.nStreamFlags));
  return ctx;
}

int main() {
  const NppLibraryVersion* version = nppGetLibVersion();
  CHECK(version != nullptr);
  std::printf("npp %d.%d.%d\n", version->major, version->minor, version->build);
  NppStreamContext ctx = stream_context();

  // npps: y = a + b, element-wise.
  const int n = 4096;
  std::vector<Npp32f> a(n), b(n), y(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.25f * i;
    b[i] = 3.0f - i;
  }
  Npp32f* da = nppsMalloc_32f(n);
  Npp32f* db = nppsMalloc_32f(n);
  Npp32f* dy = nppsMalloc_32f(n);
  CHECK(da && db && dy);
  CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(Npp32f), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), n * sizeof(Npp32f), cudaMemcpyHostToDevice));
  CHECK_EQ_STATUS(nppsAdd_32f_Ctx(da, db, dy, n, ctx), NPP_SUCCESS);
  CUDA_CHECK(cudaMemcpy(y.data(), dy, n * sizeof(Npp32f), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(std::fabs(y[i] - (a[i] + b[i])) < 1e-5f);
  nppsFree(da);
  nppsFree(db);
  nppsFree(dy);

  // nppi: an 8-bit image, every pixel above 100 clamped to 100.
  const int width = 37, height = 23;
  std::vector<Npp8u> image(width * height), out(width * height);
  for (int i = 0; i < width * height; ++i) image[i] = Npp8u((i * 7) % 256);
  int pitch = 0;
  Npp8u* dimage = nppiMalloc_8u_C1(width, height, &pitch);
  CHECK(dimage != nullptr);
  CUDA_CHECK(cudaMemcpy2D(dimage, pitch, image.data(), width, width, height, cudaMemcpyHostToDevice));
  NppiSize roi = {width, height};
  CHECK_EQ_STATUS(nppiThreshold_8u_C1IR_Ctx(dimage, pitch, roi, 100, NPP_CMP_GREATER, ctx), NPP_SUCCESS);
  CUDA_CHECK(cudaMemcpy2D(out.data(), width, dimage, pitch, width, height, cudaMemcpyDeviceToHost));
  for (int i = 0; i < width * height; ++i) CHECK(out[i] == (image[i] > 100 ? 100 : image[i]));
  nppiFree(dimage);
  std::printf("PASS\n");
  return 0;
}
