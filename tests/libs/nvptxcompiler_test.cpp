// The PTX compiler library from host-only C++ (a .cpp over
// @cuda//:nvptxcompiler, static): NVRTC makes PTX of a kernel for this GPU,
// nvPTXCompiler assembles it into a cubin in process, and the driver API runs it.
#include <nvPTXCompiler.h>

#include "tests/libs/jit_common.h"

#define PTX_CHECK(expr) CHECK((expr) == NVPTXCOMPILE_SUCCESS)

int main() {
  CUdevice dev;
  int arch = init_device(&dev);
  std::vector<char> ptx = nvrtc_compile(arch, /*lto=*/false);

  nvPTXCompilerHandle compiler;
  PTX_CHECK(nvPTXCompilerCreate(&compiler, ptx.size(), ptx.data()));
  std::string sm = "--gpu-name=sm_" + std::to_string(arch);
  const char* options[] = {sm.c_str()};
  nvPTXCompileResult compiled = nvPTXCompilerCompile(compiler, 1, options);
  if (compiled != NVPTXCOMPILE_SUCCESS) {
    size_t size = 0;
    nvPTXCompilerGetErrorLogSize(compiler, &size);
    std::string log(size, '\0');
    nvPTXCompilerGetErrorLog(compiler, &log[0]);
    std::fprintf(stderr, "%s\n", log.c_str());
  }
  PTX_CHECK(compiled);
  size_t size = 0;
  PTX_CHECK(nvPTXCompilerGetCompiledProgramSize(compiler, &size));
  std::vector<char> cubin(size);
  PTX_CHECK(nvPTXCompilerGetCompiledProgram(compiler, cubin.data()));
  PTX_CHECK(nvPTXCompilerDestroy(&compiler));
  run_saxpy_cubin(cubin);

  unsigned major = 0, minor = 0;
  PTX_CHECK(nvPTXCompilerGetVersion(&major, &minor));
  std::printf("nvptxcompiler %u.%u: %zu bytes of PTX compiled into a %zu-byte cubin for sm_%d, ran it\n", major, minor,
              ptx.size(), size, arch);
  std::printf("PASS\n");
  return 0;
}
