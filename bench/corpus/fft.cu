// Heavy templates: batched Stockham FFTs in shared memory, the size, the
// radix and the element type template parameters, the passes unrolled by
// compile-time recursion; checked against a host DFT.
#include <cmath>
#include <complex>
#include <vector>

#include "corpus.h"

namespace fft {

template <typename T>
struct Complex {
  T re, im;
  __host__ __device__ Complex operator+(Complex o) const { return {re + o.re, im + o.im}; }
  __host__ __device__ Complex operator-(Complex o) const { return {re - o.re, im - o.im}; }
  __host__ __device__ Complex operator*(Complex o) const { return {re * o.re - im * o.im, re * o.im + im * o.re}; }
};

template <typename T>
__device__ __forceinline__ Complex<T> twiddle(int k, int n, int sign);
template <>
__device__ __forceinline__ Complex<float> twiddle<float>(int k, int n, int sign) {
  float s, c;
  sincospif(sign * 2.0f * k / n, &s, &c);
  return {c, s};
}
template <>
__device__ __forceinline__ Complex<double> twiddle<double>(int k, int n, int sign) {
  double s, c;
  sincospi(sign * 2.0 * k / n, &s, &c);
  return {c, s};
}

// Radix-R butterfly on R values held in registers (small DFT, unrolled).
template <typename T, int R>
__device__ __forceinline__ void butterfly(Complex<T> (&v)[R], int sign) {
  Complex<T> out[R];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    Complex<T> s = {0, 0};
#pragma unroll
    for (int i = 0; i < R; ++i) s = s + v[i] * twiddle<T>((i * j) % R, R, sign);
    out[j] = s;
  }
#pragma unroll
  for (int j = 0; j < R; ++j) v[j] = out[j];
}

// One Stockham pass with stride L (the length of the sub-transforms done so far).
template <typename T, int N, int R, int L>
__device__ __forceinline__ void pass(const Complex<T>* src, Complex<T>* dst, int sign) {
  constexpr int kGroups = N / R;
  for (int t = threadIdx.x; t < kGroups; t += blockDim.x) {
    int j = t % L, k = t / L;
    Complex<T> v[R];
#pragma unroll
    for (int r = 0; r < R; ++r) v[r] = src[t + r * kGroups] * twiddle<T>(r * j, R * L, sign);
    butterfly<T, R>(v, sign);
#pragma unroll
    for (int r = 0; r < R; ++r) dst[k * R * L + j + r * L] = v[r];
  }
  __syncthreads();
}

// All passes, unrolled at compile time: L = 1, R, R^2, ... until N.
template <typename T, int N, int R, int L>
struct Passes {
  __device__ __forceinline__ static Complex<T>* run(Complex<T>* a, Complex<T>* b, int sign) {
    pass<T, N, R, L>(a, b, sign);
    return Passes<T, N, R, L * R>::run(b, a, sign);
  }
};
template <typename T, int N, int R>
struct Passes<T, N, R, N> {
  __device__ __forceinline__ static Complex<T>* run(Complex<T>* a, Complex<T>*, int) { return a; }
};

template <int N, int R>
__host__ __device__ constexpr bool is_power() {
  int v = 1;
  while (v < N) v *= R;
  return v == N;
}

template <typename T, int N, int R>
__global__ void batched(const Complex<T>* in, Complex<T>* out, int sign) {
  static_assert(is_power<N, R>(), "N must be a power of R");
  __shared__ Complex<T> buf[2][N];
  const Complex<T>* x = in + size_t(blockIdx.x) * N;
  for (int i = threadIdx.x; i < N; i += blockDim.x) buf[0][i] = x[i];
  __syncthreads();
  Complex<T>* result = Passes<T, N, R, 1>::run(buf[0], buf[1], sign);
  for (int i = threadIdx.x; i < N; i += blockDim.x) out[size_t(blockIdx.x) * N + i] = result[i];
}

template <typename T, int N, int R>
double check(int batch) {
  std::vector<Complex<T>> x(size_t(batch) * N), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = {T(std::sin(0.37 * i)), T(std::cos(0.11 * i * i))};
  Complex<T>*dx, *dy;
  if (cudaMalloc(&dx, x.size() * sizeof(x[0])) != cudaSuccess) return -1;
  if (cudaMalloc(&dy, x.size() * sizeof(x[0])) != cudaSuccess) return -1;
  cudaMemcpy(dx, x.data(), x.size() * sizeof(x[0]), cudaMemcpyHostToDevice);
  batched<T, N, R><<<batch, N / R < 256 ? N / R : 256>>>(dx, dy, -1);
  if (cudaGetLastError() != cudaSuccess) return -1;
  if (cudaMemcpy(y.data(), dy, y.size() * sizeof(y[0]), cudaMemcpyDeviceToHost) != cudaSuccess) return -1;
  cudaFree(dx);
  cudaFree(dy);
  double err = 0, scale = 0;
  const double pi = 3.14159265358979323846;
  for (int b = 0; b < batch; b += 3) {
    for (int k = 0; k < N; k += 7) {
      std::complex<double> s = 0;
      for (int n = 0; n < N; ++n) {
        std::complex<double> v(x[size_t(b) * N + n].re, x[size_t(b) * N + n].im);
        s += v * std::polar(1.0, -2 * pi * double((size_t(n) * k) % N) / N);
      }
      Complex<T> g = y[size_t(b) * N + k];
      err = std::fmax(err, std::abs(s - std::complex<double>(g.re, g.im)));
      scale = std::fmax(scale, std::abs(s));
    }
  }
  return err / (scale + 1e-30);
}

}  // namespace fft

int corpus_fft() {
  double errs[] = {
      fft::check<float, 64, 2>(9),    fft::check<float, 64, 4>(9),     fft::check<float, 64, 8>(9),
      fft::check<float, 256, 2>(5),   fft::check<float, 256, 4>(5),    fft::check<float, 512, 8>(4),
      fft::check<float, 1024, 4>(3),  fft::check<float, 1024, 2>(3),   fft::check<double, 64, 4>(7),
      fft::check<double, 256, 4>(4),  fft::check<double, 512, 8>(3),   fft::check<double, 1024, 4>(2),
  };
  bool ok = true;
  double worst = 0;
  for (double e : errs) {
    ok = ok && e >= 0 && e < 1e-4;
    worst = std::fmax(worst, e);
  }
  char detail[96];
  std::snprintf(detail, sizeof(detail), "12 size/radix/type variants, max relative error %.1e", worst);
  return corpus_report("fft", ok, detail);
}
