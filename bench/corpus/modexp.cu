// The ptxas-heavy file: batched modular exponentiation with fully unrolled
// Montgomery multiplication on 256- and 512-bit numbers (the kernels of
// RSA/ECC batch verification). Every limb product is unrolled into straight-
// line code with hundreds of live registers, so ptxas's register allocation
// and scheduling dominate this file's build time, not the front end.
// Checked by Fermat's little theorem on known primes and against the host.
#include <cstdint>
#include <vector>

#include "corpus.h"

namespace modexp {

template <int N>
struct Big {
  uint64_t w[N];
};

__host__ __device__ __forceinline__ void mul_wide(uint64_t a, uint64_t b, uint64_t& lo, uint64_t& hi) {
#ifdef __CUDA_ARCH__
  lo = a * b;
  hi = __umul64hi(a, b);
#else
  unsigned __int128 p = (unsigned __int128)a * b;
  lo = uint64_t(p);
  hi = uint64_t(p >> 64);
#endif
}

// Montgomery product a * b / 2^(64N) mod m (CIOS method), minv = -m^-1 mod 2^64.
template <int N>
__host__ __device__ __forceinline__ Big<N> mont_mul(const Big<N>& a, const Big<N>& b, const Big<N>& m,
                                                    uint64_t minv) {
  uint64_t t[N + 2];
#pragma unroll
  for (int i = 0; i < N + 2; ++i) t[i] = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    uint64_t carry = 0, lo, hi;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      mul_wide(a.w[j], b.w[i], lo, hi);
      uint64_t s = t[j] + lo;
      hi += s < lo;
      s += carry;
      hi += s < carry;
      t[j] = s;
      carry = hi;
    }
    uint64_t s = t[N] + carry;
    t[N + 1] = s < carry;
    t[N] = s;
    uint64_t q = t[0] * minv;
    mul_wide(q, m.w[0], lo, hi);
    uint64_t s0 = t[0] + lo;
    carry = hi + (s0 < lo);
#pragma unroll
    for (int j = 1; j < N; ++j) {
      mul_wide(q, m.w[j], lo, hi);
      uint64_t s2 = t[j] + lo;
      hi += s2 < lo;
      s2 += carry;
      hi += s2 < carry;
      t[j - 1] = s2;
      carry = hi;
    }
    s = t[N] + carry;
    t[N - 1] = s;
    t[N] = t[N + 1] + (s < carry);
  }
  Big<N> r, d;
  uint64_t borrow = 0;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    uint64_t x = t[j] - m.w[j];
    uint64_t b1 = t[j] < m.w[j];
    d.w[j] = x - borrow;
    borrow = b1 | (x < borrow);
    r.w[j] = t[j];
  }
  bool ge = t[N] || !borrow;
#pragma unroll
  for (int j = 0; j < N; ++j) r.w[j] = ge ? d.w[j] : r.w[j];
  return r;
}

// base^e in Montgomery form, fixed 2^W-ary window from the top bit.
template <int N, int W>
__host__ __device__ __forceinline__ Big<N> pow(const Big<N>& base, const Big<N>& e, const Big<N>& m,
                                               const Big<N>& one, uint64_t minv) {
  Big<N> table[1 << W];
  table[0] = one;
  table[1] = base;
#pragma unroll
  for (int k = 2; k < (1 << W); ++k) table[k] = mont_mul<N>(table[k - 1], base, m, minv);
  Big<N> acc = one;
  for (int bit = N * 64 - W; bit >= 0; bit -= W) {
#pragma unroll
    for (int s = 0; s < W; ++s) acc = mont_mul<N>(acc, acc, m, minv);
    int idx = int(e.w[bit / 64] >> (bit % 64)) & ((1 << W) - 1);
    Big<N> f = table[0];
#pragma unroll
    for (int k = 1; k < (1 << W); ++k)
      if (k == idx) f = table[k];  // constant-time selection
    acc = mont_mul<N>(acc, f, m, minv);
  }
  return acc;
}

template <int N, int W>
__global__ void batch_pow(const Big<N>* bases, const Big<N>* exps, Big<N>* out, Big<N> m, Big<N> one, uint64_t minv,
                          int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = pow<N, W>(bases[i], exps[i], m, one, minv);
}

// Host helpers: -m^-1 mod 2^64 by Newton iteration, 2^k mod m by doubling.
inline uint64_t neg_inverse(uint64_t m0) {
  uint64_t x = 1;
  for (int i = 0; i < 6; ++i) x *= 2 - m0 * x;
  return ~x + 1;
}

template <int N>
bool less(const Big<N>& a, const Big<N>& b) {
  for (int j = N - 1; j >= 0; --j)
    if (a.w[j] != b.w[j]) return a.w[j] < b.w[j];
  return false;
}

template <int N>
Big<N> pow2_mod(int k, const Big<N>& m) {  // 2^k mod m, for m > 2
  Big<N> r{};
  r.w[0] = 1;
  for (int i = 0; i < k; ++i) {
    uint64_t top = r.w[N - 1] >> 63;
    for (int j = N - 1; j > 0; --j) r.w[j] = (r.w[j] << 1) | (r.w[j - 1] >> 63);
    r.w[0] <<= 1;
    if (top || !less(r, m)) {
      uint64_t borrow = 0;
      for (int j = 0; j < N; ++j) {
        uint64_t x = r.w[j] - m.w[j];
        uint64_t b1 = r.w[j] < m.w[j];
        r.w[j] = x - borrow;
        borrow = b1 | (x < borrow);
      }
    }
  }
  return r;
}

// Raises `count` bases to `exps` on the device and on the host; returns the
// number of mismatches, and in *fermat how many results equal 1 (all of them
// when m is prime and the exponents are m - 1).
template <int N, int W>
int run(const Big<N>& m, const std::vector<Big<N>>& plain_bases, const std::vector<Big<N>>& exps, int* ones) {
  int count = int(plain_bases.size());
  uint64_t minv = neg_inverse(m.w[0]);
  Big<N> r2 = pow2_mod<N>(2 * 64 * N, m), unit{};
  unit.w[0] = 1;
  Big<N> one = mont_mul<N>(r2, unit, m, minv);
  std::vector<Big<N>> bases(count), got(count);
  for (int i = 0; i < count; ++i) bases[i] = mont_mul<N>(plain_bases[i], r2, m, minv);
  Big<N>*d_bases, *d_exps, *d_out;
  if (cudaMalloc(&d_bases, count * sizeof(Big<N>)) || cudaMalloc(&d_exps, count * sizeof(Big<N>)) ||
      cudaMalloc(&d_out, count * sizeof(Big<N>)))
    return count;
  cudaMemcpy(d_bases, bases.data(), count * sizeof(Big<N>), cudaMemcpyHostToDevice);
  cudaMemcpy(d_exps, exps.data(), count * sizeof(Big<N>), cudaMemcpyHostToDevice);
  batch_pow<N, W><<<(count + 63) / 64, 64>>>(d_bases, d_exps, d_out, m, one, minv, count);
  if (cudaMemcpy(got.data(), d_out, count * sizeof(Big<N>), cudaMemcpyDeviceToHost)) return count;
  cudaFree(d_bases);
  cudaFree(d_exps);
  cudaFree(d_out);
  int bad = 0;
  *ones = 0;
  for (int i = 0; i < count; ++i) {
    Big<N> want = pow<N, W>(bases[i], exps[i], m, one, minv);
    Big<N> plain = mont_mul<N>(got[i], unit, m, minv);
    bool same = true, is_one = plain.w[0] == 1;
    for (int j = 0; j < N; ++j) {
      same = same && want.w[j] == got[i].w[j];
      if (j > 0) is_one = is_one && plain.w[j] == 0;
    }
    bad += !same;
    *ones += is_one;
  }
  return bad;
}

template <int N>
std::vector<Big<N>> numbers(int count, uint64_t seed, int limbs) {
  std::vector<Big<N>> v(count);
  for (auto& x : v)
    for (int j = 0; j < N; ++j) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      x.w[j] = j < limbs ? (seed ^ (seed >> 29)) : 0;
    }
  return v;
}

}  // namespace modexp

int corpus_modexp() {
  using modexp::Big;
  const int count = 256;
  // secp256k1's field prime 2^256 - 2^32 - 977, and 2^255 - 19 in 8 limbs (512-bit arithmetic).
  Big<4> p256 = {{0xFFFFFFFEFFFFFC2FULL, ~0ULL, ~0ULL, ~0ULL}};
  Big<8> p25519 = {{0xFFFFFFFFFFFFFFEDULL, ~0ULL, ~0ULL, 0x7FFFFFFFFFFFFFFFULL, 0, 0, 0, 0}};
  Big<8> odd512 = {{0x9E3779B97F4A7C15ULL, 0xBF58476D1CE4E5B9ULL, 0x94D049BB133111EBULL, 0x2545F4914F6CDD1DULL,
                    0xD6E8FEB86659FD93ULL, 0xA0761D6478BD642FULL, 0xE7037ED1A0B428DBULL, 0x8EBC6AF09C88C6E3ULL}};
  auto e256 = std::vector<Big<4>>(count, p256);
  for (auto& e : e256) e.w[0] -= 1;  // p - 1
  auto e25519 = std::vector<Big<8>>(count, p25519);
  for (auto& e : e25519) e.w[0] -= 1;
  auto b256 = modexp::numbers<4>(count, 1, 3);  // < p
  auto b25519 = modexp::numbers<8>(count, 2, 3);
  auto b512 = modexp::numbers<8>(count, 3, 7), e512 = modexp::numbers<8>(count, 4, 8);
  int ones256 = 0, ones25519 = 0, ignored = 0;
  int bad = modexp::run<4, 4>(p256, b256, e256, &ones256) + modexp::run<8, 4>(p25519, b25519, e25519, &ones25519) +
            modexp::run<8, 4>(odd512, b512, e512, &ignored);
  bool ok = bad == 0 && ones256 == count && ones25519 == count && cudaGetLastError() == cudaSuccess;
  char detail[128];
  std::snprintf(detail, sizeof(detail), "3 x %d exponentiations: %d host mismatches, Fermat %d/%d and %d/%d", count,
                bad, ones256, count, ones25519, count);
  return corpus_report("modexp", ok, detail);
}
