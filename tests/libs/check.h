// Minimal checks for the library consumer tests: print what failed and exit 1.
#pragma once
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

#define CHECK_EQ_STATUS(expr, ok)                                                            \
  do {                                                                                       \
    auto status_ = (expr);                                                                   \
    if (status_ != (ok)) {                                                                   \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %d\n", __FILE__, __LINE__, #expr, (int)status_); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

#define CUDA_CHECK(expr) CHECK_EQ_STATUS(expr, cudaSuccess)
