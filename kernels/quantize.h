// fp32 -> block quantizers, used to write test and benchmark models and by
// the loader to transcode types that have no native kernel into Q8_0.
#pragma once
#include <cstdint>

#include "kernels/dtype.h"

namespace ck {

// Quantizes n floats (n a multiple of the block size of `dt`) into
// row_bytes(traits(dt), n) bytes at `out`. Supported: F32, F16, BF16, Q4_0,
// Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K (the rest throw
// std::runtime_error, as do non-finite inputs).
// Blocks are quantized in parallel over the OpenMP threads when n is large.
// Q8_0, Q4_0 and Q4_1 are llama.cpp's references (byte for byte), Q5_0 and
// Q5_1 too except that q is clamped to 31 where ggml's Q5_1 would wrap; Q4_K, Q5_K
// and Q6_K follow llama.cpp's reference quantizers (scale search, see
// docs/kernels.md), so they dequantize like files made by llama-quantize.
void quantize(DType dt, const float* x, void* out, int64_t n);

}  // namespace ck
