"""The fidelity fuzzer's cases: random nvcc option sets, arch sets and sources, drawn from a seed.

A case is a function of (seed, index, CUDA version) alone, so one printed
command replays it anywhere. Options come from OPTION_DRAWS, each an nvcc
option that cuda_library accepts (checked against the planner's option table
for the case's CUDA version by fuzz_cases_test) with a value from its legal
set, weighted toward what real projects pass. Sources are either a file of the
pool (tests/fidelity/srcs: CUB, Thrust, cooperative groups, globals, device
lambdas, printf) or a kernel file generated here from a random set of
FEATURES, which computes something checkable: `fuzz_checksum()` folds every
kernel's results into one number (fidelity_fuzz --link and the GPU run).
"""

import dataclasses
import random

# The CUDA versions a case can be drawn for, and the archs each builds (the
# fuzzer's pool; each toolkit's own nvcc --list-gpu-code allows more).
ARCHS = {
    "12.4": ("75", "80", "86", "89", "90", "90a"),
    "13.0": ("75", "80", "86", "89", "90", "90a", "100", "120"),
    "13.5": ("75", "80", "86", "89", "90", "90a", "100", "120"),
}

# Pool sources (paths relative to the repository root) and their weights: the
# heavy ones (CUB, Thrust) less often, they take several seconds each.
POOL = (
    ("tests/fidelity/srcs/plain_kernel.cu", 3),
    ("tests/fidelity/srcs/templates.cu", 3),
    ("tests/fidelity/srcs/globals.cu", 3),
    ("tests/fidelity/srcs/coop_groups.cu", 2),
    ("tests/fidelity/srcs/printf_kernel.cu", 2),
    ("tests/fidelity/srcs/ext_lambda.cu", 2),
    ("tests/fidelity/srcs/cub_reduce.cu", 1),
    ("tests/fidelity/srcs/thrust_sort.cu", 1),
    ("tools/nvcc_plan/testdata/run/axpy-kernel.cu", 2),
    # The benchmark corpus (bench/corpus: template GEMM, CUB, Thrust, FFT, ...) and the
    # examples, with the headers beside them. Since 2026-12-01: the seed-1 runs recorded
    # before drew from the files above only (their reports name each case's source).
    ("bench/corpus/cub_scan.cu", 1),
    ("bench/corpus/cub_sort.cu", 1),
    ("bench/corpus/elementwise.cu", 1),
    ("bench/corpus/expr.cu", 1),
    ("bench/corpus/fft.cu", 1),
    ("bench/corpus/gemm.cu", 1),
    ("bench/corpus/histogram.cu", 1),
    ("bench/corpus/modexp.cu", 1),
    ("bench/corpus/nbody.cu", 1),
    ("bench/corpus/softmax.cu", 1),
    ("bench/corpus/stencil.cu", 1),
    ("bench/corpus/thrust_ops.cu", 1),
    ("examples/cub_reduce/sum.cu", 1),
    ("examples/driver_api/kernels.cu", 1),
    ("examples/templated/scale.cu", 1),
    ("examples/vector_add/vector_add.cu", 1),
)

# The nested modules pool files live in: their directory in this repository, and
# the module's name (under Bazel the fuzzer finds them in its runfiles by it).
POOL_MODULES = {"bench/corpus/": "rules_cuda_stages_bench", "examples/": "rules_cuda_stages_examples"}

# The share of cases that compile a generated kernel file rather than a pool file.
GENERATED_SHARE = 0.6


def _choice(rng, values):
    return values[rng.randrange(len(values))]


def _maxrregcount(rng):
    n = str(_choice(rng, [32, 64, 128]))
    return _choice(rng, [["-maxrregcount=" + n], ["-maxrregcount", n], ["--maxrregcount=" + n]])


# (weight, name, versions (None: all), draw(rng) -> the option's words). The
# name is what the coverage report counts.
OPTION_DRAWS = (
    (6, "-O", None, lambda r: ["-O%d" % r.randrange(4)]),
    (5, "-lineinfo", None, lambda r: [_choice(r, ["-lineinfo", "--generate-line-info"])]),
    (3, "-G", None, lambda r: [_choice(r, ["-G", "--device-debug"])]),
    (5, "--use_fast_math", None, lambda r: [_choice(r, ["--use_fast_math", "-use_fast_math"])]),
    (2, "-ftz", None, lambda r: ["-ftz=" + _choice(r, ["true", "false"])]),
    (2, "-prec-div", None, lambda r: ["-prec-div=" + _choice(r, ["true", "false"])]),
    (2, "-prec-sqrt", None, lambda r: ["-prec-sqrt=" + _choice(r, ["true", "false"])]),
    (2, "-fmad", None, lambda r: ["-fmad=" + _choice(r, ["true", "false"])]),
    (4, "-Xptxas", None, lambda r: _choice(r, [
        ["-Xptxas", "-v"], ["-Xptxas=-O1"], ["-Xptxas", "--warn-on-spills"], ["-Xptxas=-dlcm=cg"],
        ["--ptxas-options=-O3"], ["-Xptxas", "-O0"], ["-Xptxas=--allow-expensive-optimizations=true"],
    ])),
    (1, "-Xcicc", None, lambda r: _choice(r, [["-Xcicc", "-O1"], ["-Xcicc=-O3"]])),
    (4, "--extended-lambda", None, lambda r: [_choice(r, ["--extended-lambda", "--expt-extended-lambda"])]),
    (4, "--expt-relaxed-constexpr", None, lambda r: ["--expt-relaxed-constexpr"]),
    (3, "-maxrregcount", None, _maxrregcount),
    (3, "--default-stream", None, lambda r: ["--default-stream", _choice(r, ["per-thread", "legacy"])]),
    (4, "-D", None, lambda r: _choice(r, [["-DNDEBUG"], ["-DFUZZ_SCALE=%d" % r.randrange(1, 9)], ["-D", "FUZZ_FLAG"],
                                          ["--define-macro=FUZZ_SCALE=3"], ["-UNDEBUG"]])),
    (4, "-std", None, lambda r: _choice(r, [["-std=c++17"], ["-std=c++20"], ["--std", "c++14"], ["-std=c++17"]])),
    (4, "-Xcompiler", None, lambda r: _choice(r, [
        ["-Xcompiler", "-O2"], ["-Xcompiler=-fno-strict-aliasing"], ["-Xcompiler", "-Wall"], ["-Xcompiler=-fPIC"],
        ["--compiler-options=-O1,-fno-omit-frame-pointer"],
    ])),
    (2, "--compress-mode", ("13.0", "13.5"), lambda r: ["--compress-mode=" + _choice(r, ["default", "size", "speed", "balance", "none"])]),
    (1, "-Xfatbin", None, lambda r: ["-Xfatbin=-compress-all"]),
    (1, "--restrict", None, lambda r: ["--restrict"]),
    (1, "--extra-device-vectorization", None, lambda r: ["--extra-device-vectorization"]),
    (1, "--keep-device-functions", None, lambda r: ["--keep-device-functions"]),
    (1, "-Wno-deprecated-gpu-targets", None, lambda r: ["-Wno-deprecated-gpu-targets"]),
    (1, "--display-error-number", None, lambda r: ["--display-error-number"]),
    (1, "--diag-suppress", None, lambda r: ["--diag-suppress=177"]),
    (1, "-Xcudafe", None, lambda r: ["-Xcudafe", "--diag_suppress=550"]),
    (1, "--source-in-ptx", None, lambda r: ["--source-in-ptx"]),
    (1, "--split-compile", None, lambda r: ["--split-compile=%d" % _choice(r, [0, 2])]),
    (1, "--static-global-template-stub", ("13.0", "13.5"), lambda r: ["--static-global-template-stub=" + _choice(r, ["true", "false"])]),
    (1, "--device-entity-has-hidden-visibility", ("13.0", "13.5"),
     lambda r: ["--device-entity-has-hidden-visibility=" + _choice(r, ["true", "false"])]),
    (1, "--Ofast-compile", ("13.0", "13.5"), lambda r: ["--Ofast-compile=" + _choice(r, ["0", "min", "mid", "max"])]),
    (1, "-Werror", None, lambda r: ["-Werror=all-warnings"]),
    (1, "--jump-table-density", None, lambda r: ["--jump-table-density=%d" % _choice(r, [0, 50, 101])]),
)

# Kernel-file features: (name, needs). "ext_lambda" needs --extended-lambda
# among the options (else nvcc refuses the file: a case of its own, drawn
# rarely on purpose by ext_lambda_without_flag below).
FEATURES = ("template", "constant", "managed", "device_global", "anon", "coop", "cub", "lambda", "math", "shared",
            "launch_bounds", "half", "variable_template")


@dataclasses.dataclass
class Case:
    seed: int
    index: int
    version: str
    source: str  # a pool path, or "generated"
    features: tuple  # of a generated source
    rdc: bool
    lto: bool
    archs: list  # nvcc's arch options
    options: list  # the other options
    option_names: tuple  # for coverage
    arch_form: str
    # "nvcc", or "clang": clang as the CUDA compiler (--@rules_cuda_stages//cuda_rules:compiler=clang);
    # its archs are then the rules' archs setting (["sm_80", "compute_90", ...]) and its options clang's.
    compiler: str = "nvcc"

    @property
    def stem(self):
        return "gen_%d" % self.index if self.source == "generated" else self.source.rsplit("/", 1)[1].rsplit(".", 1)[0]

    @property
    def file_name(self):
        return self.stem + ".cu"

    def nvcc_args(self):
        """The options of both compiles (before -c SOURCE -o OBJECT)."""
        return list(self.archs) + (["-rdc=true"] if self.rdc else []) + list(self.options)

    def args(self):
        """What the coverage report and a failing case print: the options, and the archs as the rules take them."""
        if self.compiler == "clang":
            return ["archs=" + ",".join(self.archs)] + (["rdc = True"] if self.rdc else []) + list(self.options)
        return self.nvcc_args()


def _arch_options(rng, version, rdc):
    """(form, words): 1 to 4 archs in one of nvcc's spellings; with rdc sometimes LTO IR (-dlto's form)."""
    pool = ARCHS[version]
    archs = sorted(rng.sample(pool, rng.randint(1, min(4, len(pool)))), key=lambda a: (int(a.rstrip("a")), a))
    if rdc and rng.random() < 0.3:
        return "lto", ["-gencode=arch=compute_%s,code=lto_%s" % (a, a) for a in archs if not a.endswith("a")] or \
            ["-gencode=arch=compute_90,code=lto_90"], True
    form = _choice(rng, ["arch", "gencode", "gencode_ptx", "virtual_only", "arch_code"])
    if form == "arch" and len(archs) == 1:
        return form, ["-arch=sm_" + archs[0]], False
    if form == "virtual_only":
        return form, ["-arch=compute_" + archs[0]], False
    if form == "arch_code":
        low = archs[0]
        same_family = [a for a in archs if not a.endswith("a") or a == low]
        return form, ["--gpu-architecture=compute_" + low, "--gpu-code=" + ",".join("sm_" + a for a in same_family)], False
    words = []
    for a in archs:
        words += ["-gencode", "arch=compute_%s,code=sm_%s" % (a, a)]
    if form == "gencode_ptx":
        last = archs[-1]
        words[-1] = "arch=compute_%s,code=[sm_%s,compute_%s]" % (last, last, last)
    return "gencode" if form == "arch" else form, words, False


def draw(seed, index, version):
    """The case `index` of the run `seed` on CUDA `version`."""
    rng = random.Random("fidelity-fuzz/%d/%d/%s" % (seed, index, version))
    rdc = rng.random() < 0.3
    arch_form, archs, lto = _arch_options(rng, version, rdc)
    allowed = [d for d in OPTION_DRAWS if d[2] is None or version in d[2]]
    names, options = _options(rng, allowed, [0, 1, 2, 2, 3, 3, 4, 5])
    if lto:
        names.append("code=lto")
    source, features = _source(rng)
    if source == "generated":
        if "lambda" in features and "--extended-lambda" not in names and rng.random() < 0.9:
            features = tuple(f for f in features if f != "lambda") or ("math",)
    elif source.endswith("ext_lambda.cu") and "--extended-lambda" not in names and rng.random() < 0.9:
        options.append("--extended-lambda")
        names.append("--extended-lambda")
    return Case(seed, index, version, source, features, rdc, lto, archs, options, tuple(names), arch_form)


def _options(rng, draws, counts):
    """(names, words): a random number (one of `counts`) of distinct options from `draws`, by weight."""
    names, options = [], []
    for _ in range(rng.choice(counts)):
        weight_sum = sum(d[0] for d in draws if d[1] not in names)
        pick = rng.uniform(0, weight_sum)
        for weight, name, _, fn in draws:
            if name in names:
                continue
            pick -= weight
            if pick <= 0:
                names.append(name)
                options += fn(rng)
                break
    return names, options


def _source(rng):
    """("generated", features) or (a pool path, ())."""
    if rng.random() < GENERATED_SHARE:
        return "generated", tuple(f for f in FEATURES if rng.random() < 0.35) or ("template",)
    pick = rng.uniform(0, sum(w for _, w in POOL))
    for path, w in POOL:
        pick -= w
        if pick <= 0:
            break
    return path, ()


# clang as the CUDA compiler ---------------------------------------------------
#
# The CUDA versions clang mode is fuzzed with (tools/bazelw's clang 21 supports
# CUDA up to 12.x: cuda_rules/private/compile/clang.bzl's pairs) and the GPU
# archs clang 21 builds for them.
CLANG_ARCHS = {
    "12.4": ("75", "80", "86", "89", "90", "90a"),
}

# clang driver options, as a target's copts (and host_copts, ptxasopts) give
# them: (weight, name, None, draw(rng) -> words), as OPTION_DRAWS.
CLANG_OPTION_DRAWS = (
    (6, "-O", None, lambda r: ["-O%s" % _choice(r, ["0", "1", "2", "3", "s"])]),
    (3, "-gline-tables-only", None, lambda r: ["-gline-tables-only"]),
    (1, "-g --cuda-noopt-device-debug", None, lambda r: ["-g", "--cuda-noopt-device-debug"]),
    (1, "-g", None, lambda r: ["-g"]),
    (3, "-ffast-math", None, lambda r: [_choice(r, ["-ffast-math", "-fno-fast-math"])]),
    (3, "-fcuda-flush-denormals-to-zero", None, lambda r: [_choice(r, [
        "-fcuda-flush-denormals-to-zero", "-fno-cuda-flush-denormals-to-zero", "-fgpu-flush-denormals-to-zero"])]),
    (2, "-fgpu-approx-transcendentals", None, lambda r: [_choice(r, ["-fgpu-approx-transcendentals", "-fcuda-approx-transcendentals"])]),
    (2, "-ffp-contract", None, lambda r: ["-ffp-contract=" + _choice(r, ["fast", "on", "off", "fast-honor-pragmas"])]),
    (3, "-Xcuda-ptxas", None, lambda r: _choice(r, [
        ["-Xcuda-ptxas", "-v"], ["-Xcuda-ptxas", "-O1"], ["-Xcuda-ptxas", "--maxrregcount=64"],
        ["-Xcuda-ptxas", "--warn-on-spills"], ["-Xcuda-ptxas", "-dlcm=cg"],
    ])),
    (2, "-Xarch_host", None, lambda r: _choice(r, [["-Xarch_host", "-O1"], ["-Xarch_host", "-fno-omit-frame-pointer"]])),
    (2, "-Xarch_device", None, lambda r: _choice(r, [["-Xarch_device", "-O1"], ["-Xarch_device", "-ffast-math"]])),
    (4, "-D", None, lambda r: _choice(r, [["-DNDEBUG"], ["-DFUZZ_SCALE=%d" % r.randrange(1, 9)], ["-D", "FUZZ_FLAG"],
                                          ["-UNDEBUG"]])),
    (4, "-std", None, lambda r: _choice(r, [["-std=c++17"], ["-std=c++20"], ["-std=c++14"]])),
    (2, "-W", None, lambda r: _choice(r, [["-Wall"], ["-Wextra"], ["-Wno-unused-function"]])),
    (1, "-Werror", None, lambda r: ["-Werror"]),
    (1, "-fcuda-short-ptr", None, lambda r: ["-fcuda-short-ptr"]),
    (1, "-fgpu-default-stream", None, lambda r: ["-fgpu-default-stream=" + _choice(r, ["per-thread", "legacy"])]),
    (1, "-funroll-loops", None, lambda r: [_choice(r, ["-funroll-loops", "-fno-unroll-loops"])]),
    (1, "-fno-strict-aliasing", None, lambda r: ["-fno-strict-aliasing"]),
    (1, "-ffunction-sections", None, lambda r: [_choice(r, ["-ffunction-sections", "-fdata-sections"])]),
    (1, "-fno-exceptions", None, lambda r: ["-fno-exceptions"]),
)


def draw_clang(seed, index, version):
    """The case `index` of the clang run `seed` on CUDA `version`: archs as the rules take them (sm_NN: a
    cubin, compute_NN: that arch's PTX embedded), rdc = True in some, clang's options."""
    rng = random.Random("fidelity-fuzz-clang/%d/%d/%s" % (seed, index, version))
    rdc = rng.random() < 0.25
    pool = CLANG_ARCHS[version]
    gpus = sorted(rng.sample(pool, rng.randint(1, min(4, len(pool)))), key=lambda a: (int(a.rstrip("a")), a))
    archs, forms = [], []
    for gpu in gpus:
        form = rng.choices(["sm", "sm+compute", "compute"], [7, 2, 1])[0]
        if form == "compute" and gpu.endswith("a"):
            form = "sm"  # no compute_90a without its cubin: nvcc's and the rules' rule as well
        forms.append(form)
        archs += (["sm_" + gpu] if form != "compute" else []) + (["compute_" + gpu] if form != "sm" else [])
    names, options = _options(rng, CLANG_OPTION_DRAWS, [0, 1, 2, 2, 3, 3, 4])
    source, features = _source(rng)  # clang compiles device lambdas without a flag
    # clang 21 takes CUDA 12.4's __managed__ for a host variable ("reference to __host__ variable in
    # __global__ function"), as it does in clang's own one-shot compile: not a case worth drawing.
    features = tuple(f for f in features if f != "managed") or (("template",) if source == "generated" else ())
    arch_form = "ptx_only" if "compute" in forms else ("with_ptx" if "sm+compute" in forms else "cubins")
    return Case(seed, index, version, source, features, rdc, False, archs, options, tuple(names), arch_form, "clang")


# Generated kernel files ------------------------------------------------------

_PRELUDE = """// Generated by the fidelity fuzzer (tests/fidelity/fuzz/fuzz_cases.py), features: %s
#include <cuda_runtime.h>
#include <stdint.h>
#ifndef FUZZ_SCALE
#define FUZZ_SCALE 2
#endif

static unsigned long long fuzz_fold(unsigned long long h, const void* data, size_t n) {
  const unsigned char* p = (const unsigned char*)data;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
#define FUZZ_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return 0xE000000000000000ull | (unsigned)e_; } while (0)
"""

_N = 256

_DEVICE = {
    "template": """
template <typename T, int K>
__global__ void k_template(const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * (T)K + (T)FUZZ_SCALE;
}
""",
    "constant": """
__constant__ float c_coef[8];
__global__ void k_constant(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = c_coef[i % 8] * (float)i;
}
""",
    "managed": """
__managed__ int m_count;
__global__ void k_managed(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (i % 3) == 0) atomicAdd(&m_count, i);
}
""",
    "device_global": """
__device__ unsigned d_acc[4];
static __device__ unsigned s_hidden = 7;
__global__ void k_device_global(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&d_acc[i % 4], (unsigned)i + s_hidden);
}
""",
    "anon": """
namespace {
__device__ int anon_value = 11;
__global__ void k_anon(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * anon_value;
}
}  // namespace
""",
    "coop": """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k_coop(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int v = in[block.thread_rank()];
  for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0) out[block.thread_rank() / 32] = v;
}
""",
    "cub": """
#include <cub/block/block_reduce.cuh>
__global__ void k_cub(const int* in, int* out) {
  typedef cub::BlockReduce<int, 128> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  int sum = Reduce(tmp).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) out[0] = sum;
}
""",
    "lambda": """
template <typename F>
__global__ void k_lambda(F f, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(i);
}
""",
    "math": """
__global__ void k_math(float* out, double* dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = (float)i / 17.0f + 0.25f;
    out[i] = sinf(x) * expf(-x) + sqrtf(x) / (x + 1.0f) + __fdividef(x, 3.0f);
    dout[i] = sqrt((double)x) / (double)(i + 1);
  }
}
""",
    "shared": """
__global__ void k_shared(const int* in, int* out) {
  extern __shared__ int buf[];
  buf[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = buf[0];
}
""",
    "launch_bounds": """
__global__ void __launch_bounds__(128, 2) k_bounded(float* __restrict__ out, const float* __restrict__ in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i] - 1.0f;
}
""",
    "half": """
#include <cuda_fp16.h>
__global__ void k_half(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __half2float(__hmul(__float2half((float)i), __float2half(0.5f)));
}
""",
    "variable_template": """
template <int N> __device__ int vt_scale = N * 3;
__global__ void k_vt(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i + vt_scale<5>;
}
""",
}

_HOST = {
    "template": """
  { float* f; double* d; int* x;
    FUZZ_CHECK(cudaMallocManaged(&f, N * sizeof(float))); FUZZ_CHECK(cudaMallocManaged(&d, N * sizeof(double)));
    FUZZ_CHECK(cudaMallocManaged(&x, N * sizeof(int)));
    for (int i = 0; i < N; ++i) { f[i] = i * 0.5f; d[i] = i * 0.25; x[i] = i; }
    k_template<float, 3><<<N / 128, 128>>>(f, f, N); k_template<double, 5><<<N / 128, 128>>>(d, d, N);
    k_template<int, 7><<<N / 128, 128>>>(x, x, N);
    FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, f, N * sizeof(float)); h = fuzz_fold(h, d, N * sizeof(double)); h = fuzz_fold(h, x, N * sizeof(int));
    cudaFree(f); cudaFree(d); cudaFree(x); }
""",
    "constant": """
  { float coef[8]; for (int i = 0; i < 8; ++i) coef[i] = 1.0f + i;
    FUZZ_CHECK(cudaMemcpyToSymbol(c_coef, coef, sizeof(coef)));
    float* f; FUZZ_CHECK(cudaMallocManaged(&f, N * sizeof(float)));
    k_constant<<<N / 128, 128>>>(f, N); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, f, N * sizeof(float)); cudaFree(f); }
""",
    "managed": """
  { m_count = 1; k_managed<<<N / 128, 128>>>(N); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, &m_count, sizeof(int)); }
""",
    "device_global": """
  { unsigned acc[4] = {0, 0, 0, 0}; FUZZ_CHECK(cudaMemcpyToSymbol(d_acc, acc, sizeof(acc)));
    k_device_global<<<N / 128, 128>>>(N); FUZZ_CHECK(cudaDeviceSynchronize());
    FUZZ_CHECK(cudaMemcpyFromSymbol(acc, d_acc, sizeof(acc))); h = fuzz_fold(h, acc, sizeof(acc)); }
""",
    "anon": """
  { int* x; FUZZ_CHECK(cudaMallocManaged(&x, N * sizeof(int)));
    k_anon<<<N / 128, 128>>>(x, N); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, x, N * sizeof(int)); cudaFree(x); }
""",
    "coop": """
  { int *in, *out; FUZZ_CHECK(cudaMallocManaged(&in, 128 * sizeof(int))); FUZZ_CHECK(cudaMallocManaged(&out, 4 * sizeof(int)));
    for (int i = 0; i < 128; ++i) in[i] = i * FUZZ_SCALE;
    k_coop<<<1, 128>>>(in, out); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, out, 4 * sizeof(int)); cudaFree(in); cudaFree(out); }
""",
    "cub": """
  { int *in, *out; FUZZ_CHECK(cudaMallocManaged(&in, 128 * sizeof(int))); FUZZ_CHECK(cudaMallocManaged(&out, sizeof(int)));
    for (int i = 0; i < 128; ++i) in[i] = i + 1;
    k_cub<<<1, 128>>>(in, out); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, out, sizeof(int)); cudaFree(in); cudaFree(out); }
""",
    "lambda": """
  { float* f; FUZZ_CHECK(cudaMallocManaged(&f, N * sizeof(float)));
    float scale = 1.5f * FUZZ_SCALE;
    k_lambda<<<N / 128, 128>>>([=] __device__(int i) { return scale * i - 2.0f; }, f, N);
    FUZZ_CHECK(cudaDeviceSynchronize()); h = fuzz_fold(h, f, N * sizeof(float)); cudaFree(f); }
""",
    "math": """
  { float* f; double* d; FUZZ_CHECK(cudaMallocManaged(&f, N * sizeof(float))); FUZZ_CHECK(cudaMallocManaged(&d, N * sizeof(double)));
    k_math<<<N / 128, 128>>>(f, d, N); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, f, N * sizeof(float)); h = fuzz_fold(h, d, N * sizeof(double)); cudaFree(f); cudaFree(d); }
""",
    "shared": """
  { int *in, *out; FUZZ_CHECK(cudaMallocManaged(&in, 128 * sizeof(int))); FUZZ_CHECK(cudaMallocManaged(&out, sizeof(int)));
    for (int i = 0; i < 128; ++i) in[i] = 3 * i;
    k_shared<<<1, 128, 128 * sizeof(int)>>>(in, out); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, out, sizeof(int)); cudaFree(in); cudaFree(out); }
""",
    "launch_bounds": """
  { float *in, *out; FUZZ_CHECK(cudaMallocManaged(&in, N * sizeof(float))); FUZZ_CHECK(cudaMallocManaged(&out, N * sizeof(float)));
    for (int i = 0; i < N; ++i) in[i] = i * 0.125f;
    k_bounded<<<N / 128, 128>>>(out, in, N); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, out, N * sizeof(float)); cudaFree(in); cudaFree(out); }
""",
    "half": """
  { float* f; FUZZ_CHECK(cudaMallocManaged(&f, N * sizeof(float)));
    k_half<<<N / 128, 128>>>(f, N); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, f, N * sizeof(float)); cudaFree(f); }
""",
    "variable_template": """
  { int* x; FUZZ_CHECK(cudaMallocManaged(&x, N * sizeof(int)));
    k_vt<<<N / 128, 128>>>(x, N); FUZZ_CHECK(cudaDeviceSynchronize());
    h = fuzz_fold(h, x, N * sizeof(int)); cudaFree(x); }
""",
}


def generated_source(case):
    """The text of a generated case's kernel file."""
    out = [_PRELUDE % ", ".join(case.features)]
    for feature in case.features:
        out.append(_DEVICE[feature])
    out.append('\nextern "C" unsigned long long fuzz_checksum(void) {\n  const int N = %d;\n'
               '  unsigned long long h = 14695981039346656037ull;\n' % _N)
    for feature in case.features:
        out.append(_HOST[feature])
    out.append("  FUZZ_CHECK(cudaGetLastError());\n  return h;\n}\n")
    return "".join(out)


# A main() for a generated case's object: prints its checksum (the GPU run).
CHECKSUM_MAIN = """#include <stdio.h>
extern "C" unsigned long long fuzz_checksum(void);
int main(void) { printf("%016llx\\n", fuzz_checksum()); return 0; }
"""
