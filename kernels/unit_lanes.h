// The unit-lanes layout of a Q4_K / Q5_K super-block (bump dtypes Q4_K_L and
// Q5_K_L; docs/kernels.md, "Session 29"). The block is
// ggml's, byte for byte, except that its qs (and Q5_K's qh) are permuted so
// that each 32-bit lane of a 256-bit vector holds one unit (32 weights
// sharing a scale): then a super-block's byte products add up in int16 and
// meet the eight scales in one pmaddwd. Rows stay contiguous and the block
// keeps its size, so everything that walks rows is unchanged.
//
// Unit j's weight at position p (0..31), p = 16h + 4i + b (h, i, b the half,
// the group of four and the byte):
//   qs[32i + 4j + b], low nibble for h = 0, high nibble for h = 1;
//   Q5_K: bit 2i + h of qh[4j + b] is its fifth bit.
// The activations of a super-block go in the same order, low-nibble vectors
// first: x'[32(4h + i) + 4j + b] = x[32j + 16h + 4i + b].
#pragma once
#include <cstdint>

#include "kernels/blocks.h"
#include "kernels/dtype.h"

namespace ck {

// ggml's order -> unit lanes, and back; n blocks, in place.
void to_unit_lanes(BlockQ4_K* blocks, int64_t n);
void to_unit_lanes(BlockQ5_K* blocks, int64_t n);
void from_unit_lanes(BlockQ4_K* blocks, int64_t n);
void from_unit_lanes(BlockQ5_K* blocks, int64_t n);

// The dtype the converter stores a GGUF tensor of dtype t as: Q4_K -> Q4_K_L,
// Q5_K -> Q5_K_L, every other as it is. Lossless, block by block.
DType stored_form(DType t);
// The inverse: Q4_K_L -> Q4_K, Q5_K_L -> Q5_K, every other as it is.
DType plain_form(DType t);
// n blocks of dtype t into stored_form(t), in place.
void to_stored_form(DType t, uint8_t* blocks, int64_t n);

// n int8 activations (n a multiple of 256) into the unit-lanes order.
void unit_lanes_activations(const int8_t* x, int8_t* out, int64_t n);

}  // namespace ck
