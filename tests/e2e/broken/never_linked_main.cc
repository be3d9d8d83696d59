int run_never_linked(int* out);
int main() {
  int out = 0;
  return run_never_linked(&out);
}
