// templates.cu: templated kernels, explicit instantiation through host
// launchers (int/float/double), and a template with a non-type parameter.
#include <cstdio>
#include <cuda_runtime.h>

template <typename T, int BLOCK>
__global__ void block_sum_kernel(const T* in, int n, T* out) {
  __shared__ T buf[BLOCK];
  T acc = T(0);
  for (int i = threadIdx.x; i < n; i += BLOCK) acc += in[i];
  buf[threadIdx.x] = acc;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = buf[0];
}

// Non-type template parameter: scale every element by a compile-time factor.
template <int FACTOR>
__global__ void scale_kernel(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= FACTOR;
}

// Host launcher template, explicitly instantiated below for int/float/double.
template <typename T>
cudaError_t launch_block_sum(const T* d_in, int n, T* d_out) {
  block_sum_kernel<T, 128><<<1, 128>>>(d_in, n, d_out);
  return cudaGetLastError();
}
template cudaError_t launch_block_sum<int>(const int*, int, int*);
template cudaError_t launch_block_sum<float>(const float*, int, float*);
template cudaError_t launch_block_sum<double>(const double*, int, double*);

template <typename T>
static int run_sum(const char* name) {
  const int n = 300;
  T h[n], got = T(0), want = T(0);
  for (int i = 0; i < n; ++i) { h[i] = T(i % 17); want += h[i]; }
  T *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(&d_in, n * sizeof(T));
  cudaMalloc(&d_out, sizeof(T));
  cudaMemcpy(d_in, h, n * sizeof(T), cudaMemcpyHostToDevice);
  cudaError_t err = launch_block_sum<T>(d_in, n, d_out);
  if (err == cudaSuccess) err = cudaMemcpy(&got, d_out, sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  if (err != cudaSuccess || got != want) {
    std::printf("templates: sum<%s> = %f, want %f (%s)\n", name, (double)got,
                (double)want, cudaGetErrorString(err));
    return 1;
  }
  return 0;
}

extern "C" int fidelity_templates(void) {
  if (run_sum<int>("int") || run_sum<float>("float") || run_sum<double>("double")) return 1;
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int* d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice);
  scale_kernel<3><<<1, n>>>(d, n);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d);
  if (err != cudaSuccess) {
    std::printf("templates: CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    if (h[i] != 3 * i) {
      std::printf("templates: scale<3>[%d] = %d, want %d\n", i, h[i], 3 * i);
      return 1;
    }
  }
  return 0;
}
