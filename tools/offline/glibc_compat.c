/*
 * Linked into every binary that tools/bazelw's offline toolchain builds
 * (tools/offline/offline.bazelrc, BAZEL_LINKLIBS), after libstdc++.a.
 *
 * That toolchain is gcc 14 from a Debian testing root filesystem, linking
 * against the host's C library (Debian 12, glibc 2.36) so that binaries run on
 * older systems. gcc 14's static libstdc++ was itself built against testing's
 * glibc, and two of its objects call functions that glibc added after 2.35:
 * arc4random (GLIBC_2.36, std::random_device) and __isoc23_strtoul
 * (GLIBC_2.38, the C23 name glibc >= 2.38's headers give strtoul). Defining
 * them here, hidden, binds those calls to these definitions instead of to a
 * glibc symbol version the target machine may lack. The floor then is glibc
 * 2.35: static libgcc's unwinder calls _dl_find_object (GLIBC_2.35).
 * tests/toolchain:glibc_floor_test checks every test binary against it.
 *
 * Built by tools/bazelw into /opt/rules_cuda_stages/lib of its root
 * filesystem; change the file name (_v1) there and in offline.bazelrc when
 * this file changes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/types.h>

/* strtoul, minus C23's 0b prefix for base 0 and 2 (libstdc++ parses decimal). */
__attribute__((visibility("hidden"))) unsigned long __isoc23_strtoul(const char *s, char **end, int base) {
  return strtoul(s, end, base);
}

/* 32 random bits from the kernel's CSPRNG (getrandom: GLIBC_2.25). */
__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t v;
  while (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
  }
  return v;
}
