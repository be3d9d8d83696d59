// cc_kernel.cc: CUDA in a .cc file, compiled with nvcc -x cu as rules_cuda
// compiles every source: a CUDA_CALLABLE macro that only means something
// under nvcc, round() from the implicit cuda_runtime.h (no <cmath>), and
// Thrust from the toolkit's implicit include path (no @cuda//:thrust).
#include <thrust/device_vector.h>
#include <thrust/transform.h>

#ifdef __CUDACC__
#define CUDA_CALLABLE __host__ __device__
#else
#define CUDA_CALLABLE
#endif

struct RoundTwice {
  CUDA_CALLABLE float operator()(float v) const { return round(2.0f * v); }
};

template <typename F>
__global__ void apply_kernel(float* x, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = f(x[i]);
}

extern "C" int fidelity_cc_kernel(void) {
  const int n = 257;
  thrust::device_vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = 0.3f * i;
  apply_kernel<<<(n + 127) / 128, 128>>>(thrust::raw_pointer_cast(x.data()), n, RoundTwice());
  thrust::device_vector<float> y(n);
  thrust::transform(x.begin(), x.end(), y.begin(), RoundTwice());
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  for (int i = 0; i < n; ++i) {
    float once = RoundTwice()(0.3f * i);
    if (float(x[i]) != once || float(y[i]) != RoundTwice()(once)) return 1;
  }
  return 0;
}
