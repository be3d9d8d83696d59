// nvJitLink from host-only C++ (a .cpp over @cuda//:nvjitlink): NVRTC makes
// LTO IR of a kernel for this GPU, nvJitLink links it (-lto) into a cubin,
// and the driver API runs it.
#include <nvJitLink.h>

#include "tests/libs/jit_common.h"

#define JIT_CHECK(expr) CHECK((expr) == NVJITLINK_SUCCESS)

int main() {
  CUdevice dev;
  int arch = init_device(&dev);
  std::vector<char> ltoir = nvrtc_compile(arch, /*lto=*/true);

  nvJitLinkHandle handle;
  std::string sm = "-arch=sm_" + std::to_string(arch);
  const char* options[] = {sm.c_str(), "-lto"};
  JIT_CHECK(nvJitLinkCreate(&handle, 2, options));
  nvJitLinkResult linked = nvJitLinkAddData(handle, NVJITLINK_INPUT_LTOIR, ltoir.data(), ltoir.size(), "saxpy");
  if (linked == NVJITLINK_SUCCESS) linked = nvJitLinkComplete(handle);
  if (linked != NVJITLINK_SUCCESS) {
    size_t size = 0;
    nvJitLinkGetErrorLogSize(handle, &size);
    std::string log(size, '\0');
    nvJitLinkGetErrorLog(handle, &log[0]);
    std::fprintf(stderr, "%s\n", log.c_str());
  }
  JIT_CHECK(linked);
  size_t size = 0;
  JIT_CHECK(nvJitLinkGetLinkedCubinSize(handle, &size));
  std::vector<char> cubin(size);
  JIT_CHECK(nvJitLinkGetLinkedCubin(handle, cubin.data()));
  JIT_CHECK(nvJitLinkDestroy(&handle));
  run_saxpy_cubin(cubin);

  unsigned major = 0, minor = 0;
  JIT_CHECK(nvJitLinkVersion(&major, &minor));
  std::printf("nvjitlink %u.%u: %zu bytes of LTO IR linked into a %zu-byte cubin for sm_%d, ran it\n", major, minor,
              ltoir.size(), size, arch);
  std::printf("PASS\n");
  return 0;
}
