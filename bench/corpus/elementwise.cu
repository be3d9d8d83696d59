// Plain kernels: element-wise vector operations with grid-stride loops.
#include <cmath>
#include <vector>

#include "corpus.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = a * x[i] + y[i];
  }
}

__global__ void axpby(int n, double a, const double* x, double b, double* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = a * x[i] + b * y[i];
  }
}

__global__ void clamp_scale(int n, float lo, float hi, float s, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = fminf(fmaxf(x[i] * s, lo), hi);
  }
}

// Horner evaluation of a degree-7 polynomial, coefficients in constant memory.
__constant__ float c_poly[8];

__global__ void polynomial(int n, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = x[i], r = c_poly[7];
#pragma unroll
    for (int k = 6; k >= 0; --k) r = fmaf(r, v, c_poly[k]);
    y[i] = r;
  }
}

// Vectorised copy-and-add with float4 loads.
__global__ void add4(int n4, const float4* a, const float4* b, float4* c) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

int corpus_elementwise() {
  const int n = 1 << 20;
  std::vector<float> x(n), y(n), out(n);
  std::vector<double> xd(n), yd(n), outd(n);
  for (int i = 0; i < n; ++i) {
    x[i] = std::sin(0.001f * i);
    y[i] = std::cos(0.002f * i);
    xd[i] = 0.5 * i;
    yd[i] = 1.0 - i;
  }
  const float poly[8] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, -0.03125f, 0.015625f, -0.0078125f};
  float *dx, *dy, *dz;
  double *dxd, *dyd;
  CORPUS_CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&dz, n * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&dxd, n * sizeof(double)));
  CORPUS_CHECK(cudaMalloc(&dyd, n * sizeof(double)));
  CORPUS_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(dxd, xd.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(dyd, yd.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpyToSymbol(c_poly, poly, sizeof(poly)));

  double max_err = 0;
  saxpy<<<256, 256>>>(n, 2.0f, dx, dy);
  CORPUS_CHECK(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) max_err = std::fmax(max_err, std::fabs(out[i] - (2.0f * x[i] + y[i])));

  axpby<<<256, 256>>>(n, 3.0, dxd, -0.5, dyd);
  CORPUS_CHECK(cudaMemcpy(outd.data(), dyd, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) max_err = std::fmax(max_err, std::fabs(outd[i] - (3.0 * xd[i] - 0.5 * yd[i])) / (1 + std::fabs(outd[i])));

  clamp_scale<<<256, 256>>>(n, -0.5f, 0.5f, 1.5f, dx, dz);
  CORPUS_CHECK(cudaMemcpy(out.data(), dz, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) max_err = std::fmax(max_err, std::fabs(out[i] - std::fmin(std::fmax(x[i] * 1.5f, -0.5f), 0.5f)));

  polynomial<<<256, 256>>>(n, dx, dz);
  CORPUS_CHECK(cudaMemcpy(out.data(), dz, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float r = poly[7];
    for (int k = 6; k >= 0; --k) r = r * x[i] + poly[k];
    max_err = std::fmax(max_err, std::fabs(out[i] - r));
  }

  add4<<<256, 256>>>(n / 4, reinterpret_cast<const float4*>(dx), reinterpret_cast<const float4*>(dx),
                     reinterpret_cast<float4*>(dz));
  CORPUS_CHECK(cudaMemcpy(out.data(), dz, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) max_err = std::fmax(max_err, std::fabs(out[i] - 2 * x[i]));
  CORPUS_CHECK(cudaGetLastError());

  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dz);
  cudaFree(dxd);
  cudaFree(dyd);
  char detail[96];
  std::snprintf(detail, sizeof(detail), "5 kernels on %d elements, max error %.2e", n, max_err);
  return corpus_report("elementwise", max_err < 1e-5, detail);
}
