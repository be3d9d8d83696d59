#pragma once
// A host function of the CUDA library (runs without a GPU).
int kernel_block_size();
