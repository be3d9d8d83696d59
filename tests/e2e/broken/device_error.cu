// A device-side error that only cicc reports: calling a host function from a kernel.
int host_only(int x) { return x + 1; }

__global__ void kernel(int* out) {
  out[0] = host_only(41);
}
