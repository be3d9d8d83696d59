#include "solver/solver.h"

#ifdef SOLVER_GPU
int solver_axpy_gpu(int n, double a, const double* x, double* y);
#endif

const char* solver_backend(void) {
#ifdef SOLVER_GPU
  return "gpu";
#else
  return "cpu";
#endif
}

int solver_axpy(int n, double a, const double* x, double* y) {
#ifdef SOLVER_GPU
  return solver_axpy_gpu(n, a, x, y);
#else
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
  return 0;
#endif
}
