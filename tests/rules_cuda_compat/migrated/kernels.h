#pragma once

// Fills n ints with vendor_fill_value() on the GPU and sums them there.
int fill_and_sum(int n);
