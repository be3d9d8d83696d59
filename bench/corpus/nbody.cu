// Plain kernels: all-pairs gravitational accelerations (the classic tiled
// n-body kernel) and a leapfrog step, compared with a host computation.
#include <cmath>
#include <vector>

#include "corpus.h"

constexpr int kBlock = 128;
constexpr float kSoftening2 = 1e-3f;

__device__ __forceinline__ float3 interact(float4 bi, float4 bj, float3 acc) {
  float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
  float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + kSoftening2;
  float inv = rsqrtf(dist2);
  float s = bj.w * inv * inv * inv;
  acc.x += r.x * s;
  acc.y += r.y * s;
  acc.z += r.z * s;
  return acc;
}

// pos.w is the mass.
__global__ void accelerations(int n, const float4* pos, float3* acc) {
  __shared__ float4 tile[kBlock];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = i < n ? pos[i] : make_float4(0, 0, 0, 0);
  float3 a = make_float3(0, 0, 0);
  for (int base = 0; base < n; base += kBlock) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);  // mass 0: no force
    __syncthreads();
#pragma unroll 16
    for (int k = 0; k < kBlock; ++k) a = interact(me, tile[k], a);
    __syncthreads();
  }
  if (i < n) acc[i] = a;
}

__global__ void leapfrog(int n, float dt, float4* pos, float3* vel, const float3* acc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 v = vel[i];
  v.x += dt * acc[i].x;
  v.y += dt * acc[i].y;
  v.z += dt * acc[i].z;
  vel[i] = v;
  pos[i].x += dt * v.x;
  pos[i].y += dt * v.y;
  pos[i].z += dt * v.z;
}

int corpus_nbody() {
  const int n = 2000;
  std::vector<float4> pos(n);
  for (int i = 0; i < n; ++i) {
    float t = 0.01f * i;
    pos[i] = make_float4(std::cos(t) * (1 + 0.001f * i), std::sin(t) * (1 + 0.001f * i), 0.01f * (i % 17), 1.0f / n);
  }
  std::vector<float3> acc(n);
  float4* d_pos;
  float3 *d_acc, *d_vel;
  CORPUS_CHECK(cudaMalloc(&d_pos, n * sizeof(float4)));
  CORPUS_CHECK(cudaMalloc(&d_acc, n * sizeof(float3)));
  CORPUS_CHECK(cudaMalloc(&d_vel, n * sizeof(float3)));
  CORPUS_CHECK(cudaMemcpy(d_pos, pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemset(d_vel, 0, n * sizeof(float3)));
  int blocks = (n + kBlock - 1) / kBlock;
  accelerations<<<blocks, kBlock>>>(n, d_pos, d_acc);
  CORPUS_CHECK(cudaMemcpy(acc.data(), d_acc, n * sizeof(float3), cudaMemcpyDeviceToHost));
  leapfrog<<<blocks, kBlock>>>(n, 1e-3f, d_pos, d_vel, d_acc);
  CORPUS_CHECK(cudaGetLastError());
  CORPUS_CHECK(cudaDeviceSynchronize());
  double max_rel = 0;
  for (int i = 0; i < n; ++i) {
    double ax = 0, ay = 0, az = 0;
    for (int j = 0; j < n; ++j) {
      double rx = pos[j].x - pos[i].x, ry = pos[j].y - pos[i].y, rz = pos[j].z - pos[i].z;
      double d2 = rx * rx + ry * ry + rz * rz + kSoftening2;
      double s = pos[j].w / (d2 * std::sqrt(d2));
      ax += rx * s;
      ay += ry * s;
      az += rz * s;
    }
    double norm = std::sqrt(ax * ax + ay * ay + az * az) + 1e-6;
    double err = std::sqrt((acc[i].x - ax) * (acc[i].x - ax) + (acc[i].y - ay) * (acc[i].y - ay) +
                           (acc[i].z - az) * (acc[i].z - az));
    max_rel = std::fmax(max_rel, err / norm);
  }
  cudaFree(d_pos);
  cudaFree(d_acc);
  cudaFree(d_vel);
  char detail[96];
  std::snprintf(detail, sizeof(detail), "%d bodies, max relative error %.1e", n, max_rel);
  return corpus_report("nbody", max_rel < 1e-3, detail);
}
