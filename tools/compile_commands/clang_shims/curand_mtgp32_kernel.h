/* rules_cuda_stages (tools/compile_commands): clang's CUDA wrapper
 * (__clang_cuda_runtime_wrapper.h) includes this cuRAND header, which toolkits
 * assembled from components (NVIDIA's wheels, @cuda) keep with cuRAND, not
 * the runtime. Empty: found only after every real include directory
 * (-idirafter), so a target that depends on cuRAND gets the real one. */
