// Runs every corpus self-test on the GPU. Exit status 0 = all PASS.
#include "corpus.h"

int main() {
  int (*const tests[])() = {
      corpus_elementwise, corpus_stencil, corpus_histogram, corpus_nbody,  corpus_gemm,    corpus_fft,
      corpus_expr,        corpus_cub_scan, corpus_cub_sort,  corpus_thrust, corpus_softmax, corpus_modexp,
  };
  int failed = 0;
  for (auto test : tests) failed += test();
  std::printf("%s: %d of %d corpus self-tests failed\n", failed ? "FAIL" : "PASS", failed,
              int(sizeof(tests) / sizeof(tests[0])));
  return failed ? 1 : 0;
}
