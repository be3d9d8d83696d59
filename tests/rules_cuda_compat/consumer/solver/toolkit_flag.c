#include <stdio.h>

void toolkit_flag(void) { printf("CUDA toolkit found: %d\n", CUDA_TOOLKIT_FOUND); }
