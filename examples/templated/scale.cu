// A templated kernel, instantiated for several types and factors.
#include "scale.cuh"

template <typename T, int Factor>
__global__ void scale_kernel(const T* in, T* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = in[i] * static_cast<T>(Factor);
  }
}

template <typename T, int Factor>
cudaError_t scale(const T* in, T* out, int n) {
  T *d_in = nullptr, *d_out = nullptr;
  size_t bytes = static_cast<size_t>(n) * sizeof(T);
  cudaError_t err;
  if ((err = cudaMalloc(&d_in, bytes)) != cudaSuccess) return err;
  if ((err = cudaMalloc(&d_out, bytes)) != cudaSuccess) return err;
  cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice);
  scale_kernel<T, Factor><<<64, 256>>>(d_in, d_out, n);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  err = cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  return err;
}

template cudaError_t scale<int, 3>(const int*, int*, int);
template cudaError_t scale<float, 2>(const float*, float*, int);
template cudaError_t scale<double, 5>(const double*, double*, int);
