// A tiny kernel for the analysis tests of cuda_library (never compiled by them).
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
