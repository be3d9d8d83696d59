// cuDNN: a 2-D convolution forward pass (NCHW, padding 1) against the same
// cross-correlation on the host.
#include <cudnn.h>

#include <cmath>
#include <vector>

#include "tests/libs/check.h"

#define CUDNN_CHECK(expr) CHECK_EQ_STATUS(expr, CUDNN_STATUS_SUCCESS)

int main() {
  const int n = 2, c = 3, h = 9, w = 7, k = 4, r = 3, s = 3, pad = 1;
  std::vector<float> x(n * c * h * w), f(k * c * r * s);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.05f * i);
  for (size_t i = 0; i < f.size(); ++i) f[i] = std::cos(0.3f * i) * 0.5f;
  cudnnHandle_t handle;
  CUDNN_CHECK(cudnnCreate(&handle));
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t fd;
  cudnnConvolutionDescriptor_t cd;
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&xd));
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&yd));
  CUDNN_CHECK(cudnnCreateFilterDescriptor(&fd));
  CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&cd));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
  CUDNN_CHECK(cudnnSetFilter4dDescriptor(fd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, r, s));
  CUDNN_CHECK(cudnnSetConvolution2dDescriptor(cd, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  int on, oc, oh, ow;
  CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(cd, xd, fd, &on, &oc, &oh, &ow));
  CHECK(on == n && oc == k && oh == h && ow == w);
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, oc, oh, ow));
  const auto algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t bytes = 0;
  CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(handle, xd, fd, cd, yd, algo, &bytes));
  float *dx, *df, *dy;
  void* ws = nullptr;
  CUDA_CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&df, f.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dy, n * k * h * w * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&ws, bytes ? bytes : 1));
  CUDA_CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(df, f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice));
  const float one = 1.0f, zero = 0.0f;
  CUDNN_CHECK(cudnnConvolutionForward(handle, &one, xd, dx, fd, df, cd, algo, ws, bytes, &zero, yd, dy));
  std::vector<float> y(n * k * h * w);
  CUDA_CHECK(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int b = 0; b < n; ++b)
    for (int o = 0; o < k; ++o)
      for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
          double sum = 0;
          for (int ch = 0; ch < c; ++ch)
            for (int u = 0; u < r; ++u)
              for (int v = 0; v < s; ++v) {
                int ii = i + u - pad, jj = j + v - pad;
                if (ii < 0 || ii >= h || jj < 0 || jj >= w) continue;
                sum += double(x[((b * c + ch) * h + ii) * w + jj]) * f[((o * c + ch) * r + u) * s + v];
              }
          worst = std::fmax(worst, std::fabs(y[((b * k + o) * h + i) * w + j] - sum));
        }
  std::printf("cudnn %zu: conv %dx%dx%dx%d * %dx%dx%dx%d, max |gpu - host| = %g\n", cudnnGetVersion(), n, c, h, w, k, c,
              r, s, worst);
  CHECK(worst < 1e-4);
  cudnnDestroy(handle);
  std::printf("PASS\n");
  return 0;
}
