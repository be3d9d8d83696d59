// Heavy templates: lazy vector expression templates (the style of Eigen or
// Blaze). Each expression a user writes becomes its own type and its own
// instantiation of the evaluation and reduction kernels; the host evaluates
// the same expression objects element by element to check the results.
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "corpus.h"

namespace expr {

template <typename Derived>
struct Expr {
  __host__ __device__ const Derived& self() const { return static_cast<const Derived&>(*this); }
};

template <typename T>
struct View : Expr<View<T>> {
  using value_type = T;
  const T* data;
  int n;
  __host__ __device__ T operator[](int i) const { return data[i]; }
};

template <typename T>
struct Scalar : Expr<Scalar<T>> {
  using value_type = T;
  T value;
  __host__ __device__ T operator[](int) const { return value; }
};

template <typename T>
struct Index : Expr<Index<T>> {  // the element's index, as a value
  using value_type = T;
  __host__ __device__ T operator[](int i) const { return T(i); }
};

#define EXPR_BINARY(NAME, OP)                                                                       \
  struct NAME {                                                                                     \
    template <typename T>                                                                           \
    __host__ __device__ static T apply(T a, T b) { return OP; }                                     \
  };
EXPR_BINARY(Add, a + b)
EXPR_BINARY(Sub, a - b)
EXPR_BINARY(Mul, a* b)
EXPR_BINARY(Div, a / b)
EXPR_BINARY(Max, a > b ? a : b)
EXPR_BINARY(Min, a < b ? a : b)
#undef EXPR_BINARY

#define EXPR_UNARY(NAME, OP)                                                                        \
  struct NAME {                                                                                     \
    template <typename T>                                                                           \
    __host__ __device__ static T apply(T a) { return OP; }                                          \
  };
EXPR_UNARY(Neg, -a)
EXPR_UNARY(Abs, a < T(0) ? -a : a)
EXPR_UNARY(Sqrt, std::sqrt(a))
EXPR_UNARY(Exp, std::exp(a))
EXPR_UNARY(Log1p, std::log1p(a))
EXPR_UNARY(Tanh, std::tanh(a))
EXPR_UNARY(Sigmoid, T(1) / (T(1) + std::exp(-a)))
EXPR_UNARY(Square, a* a)
#undef EXPR_UNARY

template <typename Op, typename L, typename R>
struct Binary : Expr<Binary<Op, L, R>> {
  using value_type = typename L::value_type;
  L l;
  R r;
  __host__ __device__ value_type operator[](int i) const { return Op::apply(l[i], r[i]); }
};

template <typename Op, typename A>
struct Unary : Expr<Unary<Op, A>> {
  using value_type = typename A::value_type;
  A a;
  __host__ __device__ value_type operator[](int i) const { return Op::apply(a[i]); }
};

template <typename C, typename A, typename B>
struct Select : Expr<Select<C, A, B>> {  // c > 0 ? a : b
  using value_type = typename A::value_type;
  C c;
  A a;
  B b;
  __host__ __device__ value_type operator[](int i) const { return c[i] > value_type(0) ? a[i] : b[i]; }
};

template <typename T>
struct is_expr : std::false_type {};
template <typename T>
struct is_expr<View<T>> : std::true_type {};
template <typename T>
struct is_expr<Scalar<T>> : std::true_type {};
template <typename T>
struct is_expr<Index<T>> : std::true_type {};
template <typename O, typename L, typename R>
struct is_expr<Binary<O, L, R>> : std::true_type {};
template <typename O, typename A>
struct is_expr<Unary<O, A>> : std::true_type {};
template <typename C, typename A, typename B>
struct is_expr<Select<C, A, B>> : std::true_type {};

template <typename E, typename V>
__host__ __device__ auto lift(const E& e, V) {
  if constexpr (is_expr<E>::value) {
    return e;
  } else {
    return Scalar<V>{{}, V(e)};
  }
}

template <typename A, typename B>
struct value_of {
  using type = typename std::conditional_t<is_expr<A>::value, A, B>::value_type;
};

#define EXPR_OPERATOR(OP, NAME)                                                                     \
  template <typename A, typename B, typename = std::enable_if_t<is_expr<A>::value || is_expr<B>::value>> \
  __host__ __device__ auto operator OP(const A& a, const B& b) {                                    \
    using V = typename value_of<A, B>::type;                                                        \
    auto la = lift(a, V());                                                                         \
    auto lb = lift(b, V());                                                                         \
    return Binary<NAME, decltype(la), decltype(lb)>{{}, la, lb};                                    \
  }
EXPR_OPERATOR(+, Add)
EXPR_OPERATOR(-, Sub)
EXPR_OPERATOR(*, Mul)
EXPR_OPERATOR(/, Div)
#undef EXPR_OPERATOR

#define EXPR_FUNCTION(FN, NAME)                                                                     \
  template <typename A, typename = std::enable_if_t<is_expr<A>::value>>                             \
  __host__ __device__ Unary<NAME, A> FN(const A& a) {                                               \
    return {{}, a};                                                                                 \
  }
EXPR_FUNCTION(neg, Neg)
EXPR_FUNCTION(abs, Abs)
EXPR_FUNCTION(sqrt, Sqrt)
EXPR_FUNCTION(exp, Exp)
EXPR_FUNCTION(log1p, Log1p)
EXPR_FUNCTION(tanh, Tanh)
EXPR_FUNCTION(sigmoid, Sigmoid)
EXPR_FUNCTION(square, Square)
#undef EXPR_FUNCTION

template <typename A, typename B>
__host__ __device__ Binary<Max, A, B> max(const A& a, const B& b) { return {{}, a, b}; }
template <typename A, typename B>
__host__ __device__ Binary<Min, A, B> min(const A& a, const B& b) { return {{}, a, b}; }
template <typename C, typename A, typename B>
__host__ __device__ Select<C, A, B> where(const C& c, const A& a, const B& b) { return {{}, c, a, b}; }

template <typename E>
__global__ void evaluate(E e, typename E::value_type* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = e[i];
}

// Sum of an expression: grid-stride partial sums, a shared-memory tree per block, one atomic per block.
template <typename E>
__global__ void reduce_sum(E e, double* out, int n) {
  __shared__ double partial[256];
  double s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += double(e[i]);
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

struct Checker {
  int n;
  double worst = 0;
  bool ok = true;
  int count = 0;
  template <typename E>
  void operator()(const E& device_expr, const E& host_expr) {
    using T = typename E::value_type;
    T* out;
    double* sum;
    std::vector<T> got(n);
    double dsum = 0;
    ok = ok && cudaMalloc(&out, n * sizeof(T)) == cudaSuccess && cudaMalloc(&sum, sizeof(double)) == cudaSuccess &&
         cudaMemset(sum, 0, sizeof(double)) == cudaSuccess;
    if (!ok) return;
    evaluate<<<64, 256>>>(device_expr, out, n);
    reduce_sum<<<64, 256>>>(device_expr, sum, n);
    ok = ok && cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess &&
         cudaMemcpy(&dsum, sum, sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(out);
    cudaFree(sum);
    double hsum = 0, err = 0;
    for (int i = 0; i < n; ++i) {
      double want = double(host_expr[i]);
      hsum += want;
      err = std::fmax(err, std::fabs(double(got[i]) - want) / (1 + std::fabs(want)));
    }
    err = std::fmax(err, std::fabs(dsum - hsum) / (1 + std::fabs(hsum)) / 10);
    worst = std::fmax(worst, err);
    ok = ok && err < (sizeof(T) == 4 ? 1e-4 : 1e-10);
    ++count;
  }
};

// Builds every expression twice: over device views and over host views.
template <typename T, typename Check>
void all_expressions(View<T> x, View<T> y, View<T> z, View<T> hx, View<T> hy, View<T> hz, Check& check) {
  Index<T> i{};
#define BOTH(...)                                                                                   \
  do {                                                                                              \
    auto device_expr = [&](View<T> x, View<T> y, View<T> z) { return __VA_ARGS__; }(x, y, z);        \
    auto host_expr = [&](View<T> x, View<T> y, View<T> z) { return __VA_ARGS__; }(hx, hy, hz);       \
    check(device_expr, host_expr);                                                                  \
  } while (0)
  BOTH(x + y);
  BOTH(x * y + z);
  BOTH(T(2) * x - y / T(3));
  BOTH(sqrt(abs(x)) + square(y));
  BOTH(exp(neg(square(x))) * z);
  BOTH(sigmoid(x * y - z));
  BOTH(tanh(x) + tanh(y) + tanh(z));
  BOTH(log1p(square(x) + square(y)));
  BOTH(max(x, y) - min(y, z));
  BOTH(where(x - y, x, y) + where(z, z, neg(z)));
  BOTH((x + y) * (x - y) / (T(1) + square(z)));
  BOTH(i * T(0.001) + x);
  BOTH(sigmoid(tanh(x + y) * sqrt(abs(z) + T(1))));
  BOTH(square(square(x)) - T(4) * square(x) * square(y) + square(square(y)));
  BOTH(exp(x) / (exp(x) + exp(y) + exp(z)));
  BOTH(max(max(x, y), z) - min(min(x, y), z));
#undef BOTH
}

}  // namespace expr

template <typename T>
static int run_all(int n, expr::Checker& check) {
  std::vector<T> hx(n), hy(n), hz(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = T(std::sin(0.01 * i));
    hy[i] = T(std::cos(0.013 * i)) * T(0.5);
    hz[i] = T((i % 17) - 8) / T(8);
  }
  T *dx, *dy, *dz;
  CORPUS_CHECK(cudaMalloc(&dx, n * sizeof(T)));
  CORPUS_CHECK(cudaMalloc(&dy, n * sizeof(T)));
  CORPUS_CHECK(cudaMalloc(&dz, n * sizeof(T)));
  CORPUS_CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(dy, hy.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(dz, hz.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  using V = expr::View<T>;
  expr::all_expressions<T>(V{{}, dx, n}, V{{}, dy, n}, V{{}, dz, n}, V{{}, hx.data(), n}, V{{}, hy.data(), n},
                           V{{}, hz.data(), n}, check);
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dz);
  return 0;
}

int corpus_expr() {
  expr::Checker check{100003};
  if (run_all<float>(check.n, check) || run_all<double>(check.n, check)) return 1;
  char detail[96];
  std::snprintf(detail, sizeof(detail), "%d expressions (evaluate + reduce), max relative error %.1e", check.count,
                check.worst);
  return corpus_report("expr", check.ok && check.count == 32, detail);
}
