// Kernels that a driver-API program loads at run time (main.cc) from their
// fatbinary, instead of linking them: extern "C", so cuModuleGetFunction
// finds them by their plain names.
extern "C" __global__ void scale_add(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
