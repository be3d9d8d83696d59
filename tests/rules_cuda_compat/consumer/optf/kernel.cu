#include "kernel.h"

#ifndef OPTF_VALUE
#error "OPTF_VALUE comes from example.optf"
#endif

__global__ void uses_value(int* out) { *out = OPTF_VALUE; }

int optf_value() { return OPTF_VALUE; }
