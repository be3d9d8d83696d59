// run_all_main.cc: calls every fidelity_* entry point and reports PASS/FAIL.
#include <cstdio>

extern "C" int fidelity_plain_kernel(void);
extern "C" int fidelity_templates(void);
extern "C" int fidelity_cub_reduce(void);
extern "C" int fidelity_thrust_sort(void);
extern "C" int fidelity_printf_kernel(void);
extern "C" int fidelity_globals(void);
extern "C" int fidelity_coop_groups(void);
extern "C" int fidelity_ext_lambda(void);
extern "C" int fidelity_cc_kernel(void);

int main() {
  struct Case {
    const char* name;
    int (*fn)(void);
  };
  const Case cases[] = {
      {"plain_kernel", fidelity_plain_kernel}, {"templates", fidelity_templates},
      {"cub_reduce", fidelity_cub_reduce},     {"thrust_sort", fidelity_thrust_sort},
      {"printf_kernel", fidelity_printf_kernel}, {"globals", fidelity_globals},
      {"coop_groups", fidelity_coop_groups},   {"ext_lambda", fidelity_ext_lambda},
      {"cc_kernel", fidelity_cc_kernel},
  };
  int failed = 0;
  for (const Case& c : cases) {
    int rc = c.fn();
    std::printf("%s %s\n", rc == 0 ? "PASS" : "FAIL", c.name);
    std::fflush(stdout);
    if (rc != 0) ++failed;
  }
  return failed == 0 ? 0 : 1;
}
