// nvJPEG from host-only C++ (a .cpp over @cuda//:nvjpeg): a synthetic RGB
// image encoded to JPEG on the GPU, its header read back, decoded again, and
// the round trip compared with the original (JPEG is lossy: a bound on the
// mean error).
#include <nvjpeg.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "tests/libs/check.h"

#define NVJPEG_CHECK(expr) CHECK_EQ_STATUS(expr, NVJPEG_STATUS_SUCCESS)

int main() {
  const int width = 64, height = 48;
  std::vector<unsigned char> rgb(width * height * 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      unsigned char* p = &rgb[(y * width + x) * 3];
      p[0] = (unsigned char)(4 * x);
      p[1] = (unsigned char)(5 * y);
      p[2] = (unsigned char)(128 + 60 * std::sin(0.2 * (x + y)));
    }
  unsigned char* d_rgb;
  CUDA_CHECK(cudaMalloc(&d_rgb, rgb.size()));
  CUDA_CHECK(cudaMemcpy(d_rgb, rgb.data(), rgb.size(), cudaMemcpyHostToDevice));

  nvjpegHandle_t handle;
  NVJPEG_CHECK(nvjpegCreateSimple(&handle));
  nvjpegEncoderState_t enc_state;
  nvjpegEncoderParams_t enc_params;
  NVJPEG_CHECK(nvjpegEncoderStateCreate(handle, &enc_state, 0));
  NVJPEG_CHECK(nvjpegEncoderParamsCreate(handle, &enc_params, 0));
  NVJPEG_CHECK(nvjpegEncoderParamsSetQuality(enc_params, 95, 0));
  NVJPEG_CHECK(nvjpegEncoderParamsSetSamplingFactors(enc_params, NVJPEG_CSS_444, 0));
  nvjpegImage_t source = {};
  source.channel[0] = d_rgb;
  source.pitch[0] = width * 3;
  NVJPEG_CHECK(nvjpegEncodeImage(handle, enc_state, enc_params, &source, NVJPEG_INPUT_RGBI, width, height, 0));
  size_t length = 0;
  NVJPEG_CHECK(nvjpegEncodeRetrieveBitstream(handle, enc_state, nullptr, &length, 0));
  std::vector<unsigned char> jpeg(length);
  NVJPEG_CHECK(nvjpegEncodeRetrieveBitstream(handle, enc_state, jpeg.data(), &length, 0));
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(length > 2 && jpeg[0] == 0xFF && jpeg[1] == 0xD8);  // SOI marker

  int components = 0;
  nvjpegChromaSubsampling_t subsampling;
  int widths[NVJPEG_MAX_COMPONENT], heights[NVJPEG_MAX_COMPONENT];
  NVJPEG_CHECK(nvjpegGetImageInfo(handle, jpeg.data(), length, &components, &subsampling, widths, heights));
  CHECK(components == 3 && widths[0] == width && heights[0] == height);

  nvjpegJpegState_t dec_state;
  NVJPEG_CHECK(nvjpegJpegStateCreate(handle, &dec_state));
  unsigned char* d_out;
  CUDA_CHECK(cudaMalloc(&d_out, rgb.size()));
  nvjpegImage_t dest = {};
  dest.channel[0] = d_out;
  dest.pitch[0] = width * 3;
  NVJPEG_CHECK(nvjpegDecode(handle, dec_state, jpeg.data(), length, NVJPEG_OUTPUT_RGBI, &dest, 0));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> out(rgb.size());
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, out.size(), cudaMemcpyDeviceToHost));
  double error = 0;
  for (size_t i = 0; i < out.size(); ++i) error += std::abs(int(out[i]) - int(rgb[i]));
  error /= out.size();
  std::printf("nvjpeg: %dx%d RGB -> %zu bytes of JPEG -> RGB, mean |error| %.2f\n", width, height, length, error);
  CHECK(error < 4.0);

  NVJPEG_CHECK(nvjpegJpegStateDestroy(dec_state));
  NVJPEG_CHECK(nvjpegEncoderParamsDestroy(enc_params));
  NVJPEG_CHECK(nvjpegEncoderStateDestroy(enc_state));
  NVJPEG_CHECK(nvjpegDestroy(handle));
  CUDA_CHECK(cudaFree(d_rgb));
  CUDA_CHECK(cudaFree(d_out));
  std::printf("PASS\n");
  return 0;
}
