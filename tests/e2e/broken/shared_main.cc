// A binary over two rdc libraries that share relocatable code (shared_common).
int run_d(int* out);
int run_e(int* out);
int main() {
  int out = 0;
  return run_d(&out) + run_e(&out);
}
