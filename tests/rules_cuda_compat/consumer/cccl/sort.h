#pragma once
#include <vector>

// Sorts on the GPU with Thrust and sums with CUB; returns the sum.
long long sort_and_sum(std::vector<int>& values);
