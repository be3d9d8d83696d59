#include <cstdio>

#include "kernel.h"

int main() {
  std::printf("%d\n", kernel_block_size());
  return 0;
}
