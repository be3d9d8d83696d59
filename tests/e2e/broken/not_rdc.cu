// Not relocatable: its device function cannot be linked against.
__device__ float not_rdc_twice(float x) { return 2.0f * x; }
