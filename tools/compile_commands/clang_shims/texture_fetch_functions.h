/* rules_cuda_stages (tools/compile_commands): clang's CUDA wrapper up to LLVM 21
 * (__clang_cuda_runtime_wrapper.h) includes this header, which CUDA 13 removed
 * with texture references. Empty: found only after every real include
 * directory (-idirafter), for editors parsing .cu files with clang. */
