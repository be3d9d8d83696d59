// A library of the Debian 12.4 toolkit linked and loaded: prints nvJPEG's
// version (no GPU needed) and checks it is CUDA 12's (libnvjpeg.so.12).
#include <cstdio>
#include <nvjpeg.h>

int main() {
  int major = 0, minor = 0, patch = 0;
  if (nvjpegGetProperty(MAJOR_VERSION, &major) != NVJPEG_STATUS_SUCCESS ||
      nvjpegGetProperty(MINOR_VERSION, &minor) != NVJPEG_STATUS_SUCCESS ||
      nvjpegGetProperty(PATCH_LEVEL, &patch) != NVJPEG_STATUS_SUCCESS) {
    std::printf("FAIL: nvjpegGetProperty\n");
    return 1;
  }
  std::printf("nvJPEG %d.%d.%d (headers %d.%d.%d)\n", major, minor, patch, NVJPEG_VER_MAJOR, NVJPEG_VER_MINOR,
              NVJPEG_VER_PATCH);
  return major == NVJPEG_VER_MAJOR && minor == NVJPEG_VER_MINOR ? 0 : 1;
}
