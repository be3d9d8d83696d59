/* steptime LOG TAG PROG ARGS...: runs PROG, then appends "TAG wall user sys args..." (seconds) to LOG (bench/compile_bench/tool_cpu/wrap_toolkit.sh). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double tv(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }
int main(int argc, char **argv) {
  if (argc < 4) return 2;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  pid_t pid = fork();
  if (pid == 0) { execv(argv[3], argv + 3); perror("exec"); _exit(127); }
  int status; struct rusage ru;
  wait4(pid, &status, 0, &ru);
  clock_gettime(CLOCK_MONOTONIC, &b);
  FILE *f = fopen(argv[1], "a");
  if (f) {
    fprintf(f, "%s %.6f %.6f %.6f", argv[2], (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, tv(ru.ru_utime), tv(ru.ru_stime));
    int n = 0;
    for (int i = 4; i < argc && n < 400; i++) { n += fprintf(f, " %.120s", argv[i]); }
    fprintf(f, "\n");
    fclose(f);
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}
