#include <cstdio>

#include "kernel.h"

int main() {
  std::printf("optf_value() = %d\n", optf_value());
  return optf_value() == 7 ? 0 : 1;
}
