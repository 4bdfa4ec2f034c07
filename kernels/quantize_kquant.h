// The K-quant quantizers behind quantize(): one super-block of 256 floats.
#pragma once

#include "kernels/blocks.h"

namespace ck {

void quantize_block_q4_k(const float* x, BlockQ4_K* out);
void quantize_block_q5_k(const float* x, BlockQ5_K* out);
void quantize_block_q6_k(const float* x, BlockQ6_K* out);

}  // namespace ck
