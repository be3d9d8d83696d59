// Plain kernels: a 2D Jacobi iteration with shared-memory tiles and a 3D
// 7-point stencil, compared with the same iterations on the host.
#include <cmath>
#include <vector>

#include "corpus.h"

constexpr int kTile = 16;

// One Jacobi sweep of the 2D Laplace equation; boundary values stay fixed.
__global__ void jacobi2d(int nx, int ny, const float* in, float* out) {
  __shared__ float tile[kTile + 2][kTile + 2];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  bool inside = x < nx && y < ny;
  if (inside) {
    tile[ty][tx] = in[y * nx + x];
    if (threadIdx.x == 0 && x > 0) tile[ty][0] = in[y * nx + x - 1];
    if (threadIdx.x == kTile - 1 && x + 1 < nx) tile[ty][kTile + 1] = in[y * nx + x + 1];
    if (threadIdx.y == 0 && y > 0) tile[0][tx] = in[(y - 1) * nx + x];
    if (threadIdx.y == kTile - 1 && y + 1 < ny) tile[kTile + 1][tx] = in[(y + 1) * nx + x];
  }
  __syncthreads();
  if (!inside) return;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[y * nx + x] = tile[ty][tx];
    return;
  }
  // Edge threads of the tile read halo cells loaded above.
  float left = threadIdx.x == 0 ? tile[ty][0] : tile[ty][tx - 1];
  float right = (threadIdx.x == kTile - 1) ? tile[ty][kTile + 1] : tile[ty][tx + 1];
  float up = threadIdx.y == 0 ? tile[0][tx] : tile[ty - 1][tx];
  float down = (threadIdx.y == kTile - 1) ? tile[kTile + 1][tx] : tile[ty + 1][tx];
  out[y * nx + x] = 0.25f * (left + right + up + down);
}

// 3D 7-point heat-equation step with a compile-time coefficient set.
template <int kOrder>
__global__ void heat3d(int n, float alpha, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n || y >= n) return;
  for (int z = 0; z < n; ++z) {
    size_t i = (size_t(z) * n + y) * n + x;
    if (x < kOrder || y < kOrder || z < kOrder || x >= n - kOrder || y >= n - kOrder || z >= n - kOrder) {
      out[i] = in[i];
      continue;
    }
    float lap = -6.0f * in[i];
#pragma unroll
    for (int k = 1; k <= kOrder; ++k) {
      float w = 1.0f / (k * k);
      lap += w * (in[i - k] + in[i + k] + in[i - k * n] + in[i + k * n] + in[i - size_t(k) * n * n] +
                  in[i + size_t(k) * n * n] - 6.0f * in[i]);
    }
    out[i] = in[i] + alpha * lap;
  }
}

template __global__ void heat3d<1>(int, float, const float*, float*);
template __global__ void heat3d<2>(int, float, const float*, float*);

static void jacobi_host(int nx, int ny, const std::vector<float>& in, std::vector<float>& out) {
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      int i = y * nx + x;
      if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
        out[i] = in[i];
      else
        out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
    }
}

template <int kOrder>
static void heat_host(int n, float alpha, const std::vector<float>& in, std::vector<float>& out) {
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        size_t i = (size_t(z) * n + y) * n + x;
        if (x < kOrder || y < kOrder || z < kOrder || x >= n - kOrder || y >= n - kOrder || z >= n - kOrder) {
          out[i] = in[i];
          continue;
        }
        float lap = -6.0f * in[i];
        for (int k = 1; k <= kOrder; ++k) {
          float w = 1.0f / (k * k);
          lap += w * (in[i - k] + in[i + k] + in[i - k * n] + in[i + k * n] + in[i - size_t(k) * n * n] +
                      in[i + size_t(k) * n * n] - 6.0f * in[i]);
        }
        out[i] = in[i] + alpha * lap;
      }
}

int corpus_stencil() {
  const int nx = 300, ny = 200, iters = 20;
  std::vector<float> a(nx * ny), b(nx * ny), got(nx * ny);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) a[y * nx + x] = (x == 0 ? 1.0f : 0.0f) + (y == ny - 1 ? 0.5f : 0.0f);
  float *da, *db;
  CORPUS_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&db, a.size() * sizeof(float)));
  CORPUS_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(kTile, kTile), grid((nx + kTile - 1) / kTile, (ny + kTile - 1) / kTile);
  for (int it = 0; it < iters; ++it) {
    jacobi2d<<<grid, block>>>(nx, ny, da, db);
    std::swap(da, db);
    jacobi_host(nx, ny, a, b);
    std::swap(a, b);
  }
  CORPUS_CHECK(cudaMemcpy(got.data(), da, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double err2d = 0;
  for (size_t i = 0; i < got.size(); ++i) err2d = std::fmax(err2d, std::fabs(got[i] - a[i]));

  const int n = 48;
  std::vector<float> h(size_t(n) * n * n), h2(h.size()), hgot(h.size());
  for (size_t i = 0; i < h.size(); ++i) h[i] = float((i * 2654435761u) % 1000) / 1000.0f;
  float *dh, *dh2;
  CORPUS_CHECK(cudaMalloc(&dh, h.size() * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&dh2, h.size() * sizeof(float)));
  CORPUS_CHECK(cudaMemcpy(dh, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 b3(16, 8), g3((n + 15) / 16, (n + 7) / 8);
  heat3d<1><<<g3, b3>>>(n, 0.05f, dh, dh2);
  heat3d<2><<<g3, b3>>>(n, 0.02f, dh2, dh);
  CORPUS_CHECK(cudaMemcpy(hgot.data(), dh, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  heat_host<1>(n, 0.05f, h, h2);
  heat_host<2>(n, 0.02f, h2, h);
  double err3d = 0;
  for (size_t i = 0; i < h.size(); ++i) err3d = std::fmax(err3d, std::fabs(hgot[i] - h[i]));
  CORPUS_CHECK(cudaGetLastError());
  cudaFree(da);
  cudaFree(db);
  cudaFree(dh);
  cudaFree(dh2);
  char detail[128];
  std::snprintf(detail, sizeof(detail), "%d Jacobi sweeps %dx%d (max error %.1e), 3D 7-point n=%d (max error %.1e)",
                iters, nx, ny, err2d, n, err3d);
  return corpus_report("stencil", err2d < 1e-5 && err3d < 1e-4, detail);
}
