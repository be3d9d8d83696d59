#ifndef SOLVER_AXPY_KERNEL_H_
#define SOLVER_AXPY_KERNEL_H_

#ifdef __cplusplus
extern "C" {
#endif

/* y = a * x + y on the GPU, for n doubles already in device memory. */
int solver_axpy_device(int n, double a, const double* x, double* y);

#ifdef __cplusplus
}
#endif

#endif
