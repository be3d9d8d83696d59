// A kernel in a file whose name holds characters nvcc prints unquoted in its plan (tests/file_names).
__global__ void k(int* out) { out[0] = 42; }
