#ifndef SOLVER_SOLVER_H_
#define SOLVER_SOLVER_H_

/* y = a * x + y for n doubles in host memory; on the GPU when the library was
   built with it. Returns 0 on success. */
int solver_axpy(int n, double a, const double* x, double* y);

/* "gpu" or "cpu": which path solver_axpy takes. */
const char* solver_backend(void);

#endif
