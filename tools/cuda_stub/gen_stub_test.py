"""Unit tests of gen_stub's symbol extraction."""

from absl.testing import absltest

import gen_stub

_HEADER = """
#define cuCtxCreate cuCtxCreate_v4
#define cuMemAlloc cuMemAlloc_v2
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
    #define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)
    #define cuLaunchKernel __CUDA_API_PTSZ(cuLaunchKernel)
#endif
CUresult CUDAAPI cuInit(unsigned int Flags);
CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult CUDAAPI
    cuMemAlloc(CUdeviceptr *dptr, size_t bytesize);
typedef CUresult (CUDAAPI *PFN_notAFunction)(void);
/* cuInDocComment(x) is not a declaration */
"""


class GenStubTest(absltest.TestCase):
    def test_symbols(self):
        self.assertEqual(
            gen_stub.stub_symbols(_HEADER, "cu", "CUDAAPI"),
            sorted([
                "cuInit",
                "cuCtxCreate", "cuCtxCreate_v4",
                "cuMemAlloc", "cuMemAlloc_v2",
                "cuMemcpyHtoD_v2_ptds",
                "cuLaunchKernel_ptsz",
            ]),
        )

    def test_other_prefix(self):
        header = "#define nvmlInit nvmlInit_v2\nnvmlReturn_t DECLDIR nvmlInit(void);\nnvmlReturn_t DECLDIR nvmlShutdown(void);\n"
        self.assertEqual(gen_stub.stub_symbols(header, "nvml", "DECLDIR"), ["nvmlInit", "nvmlInit_v2", "nvmlShutdown"])

    def test_macro_inside_the_return_type(self):
        # nvml.h: `const DECLDIR char* nvmlErrorString(...)`, the macro between
        # the type's qualifier and the type (nvbench links it).
        header = "const DECLDIR char* nvmlErrorString(nvmlReturn_t result);\nnvmlReturn_t DECLDIR\n  nvmlInit(void);\n"
        self.assertEqual(gen_stub.stub_symbols(header, "nvml", "DECLDIR"), ["nvmlErrorString", "nvmlInit"])


if __name__ == "__main__":
    absltest.main()
