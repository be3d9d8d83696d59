#include <stdio.h>

#include "solver/solver.h"

int main(void) {
  double x[1000], y[1000];
  for (int i = 0; i < 1000; ++i) {
    x[i] = i;
    y[i] = 1.0;
  }
  if (solver_axpy(1000, 2.0, x, y) != 0) {
    printf("FAIL: solver_axpy (%s) failed\n", solver_backend());
    return 1;
  }
  for (int i = 0; i < 1000; ++i) {
    if (y[i] != 2.0 * i + 1.0) {
      printf("FAIL: y[%d] = %g, want %g (%s)\n", i, y[i], 2.0 * i + 1.0, solver_backend());
      return 1;
    }
  }
  printf("PASS: axpy of 1000 doubles on the %s\n", solver_backend());
  return 0;
}
