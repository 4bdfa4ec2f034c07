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
//
// Q6_K_L (docs/kernels.md, "Session 32"): Q6_K's block with its weights in
// that order too, so that lane j of vectors 0-3 holds sub-block 2j and of
// vectors 4-7 sub-block 2j + 1; two vectors' pair sums add up in int16
// (2 x 2 x 63 x 127 fits) and meet eight scales in one pmaddwd. Weight p of
// unit j: its low four bits where Q4_K_L keeps its nibble (in ql), its top
// two bits 2(i % 2) + 4h of qh[32(i / 2) + 4j + b]; scales[] holds the even
// sub-blocks' scales, then the odd ones' (XSums::bsum16_8k's order).
//
// Q5_0_L / Q5_1_L (docs/kernels.md, "Session 37"): Q5_0's and Q5_1's blocks
// with qh transposed, weight j's fifth bit at bit j / 4 of qh[j % 4]
// (ggml: bit j % 8 of qh[j / 8]). With qh broadcast to every 32-bit lane,
// the lane holding weights 4g .. 4g + 3 (or 16 + 4g ..) finds their bits
// at one position g (4 + g) in each of its four bytes, so one shift per lane
// brings all of them to bit 4.
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
void to_unit_lanes(BlockQ6_K* blocks, int64_t n);
void from_unit_lanes(BlockQ6_K* blocks, int64_t n);
void to_unit_lanes(BlockQ5_0* blocks, int64_t n);
void to_unit_lanes(BlockQ5_1* blocks, int64_t n);
void from_unit_lanes(BlockQ5_0* blocks, int64_t n);
void from_unit_lanes(BlockQ5_1* blocks, int64_t n);

// The bit of Q5_0_L's / Q5_1_L's little-endian u32 qh that holds weight j's
// fifth bit (ggml's: bit j).
constexpr int q5_lanes_bit(int j) { return 8 * (j % 4) + j / 4; }

// The dtype the converter stores a GGUF tensor of dtype t and `rows` rows
// as: Q5_K -> Q5_K_L; Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q6_K
// -> Q8_0_R16 etc. where rows is a multiple of 16 (row_groups.h), else
// Q5_0 -> Q5_0_L, Q5_1 -> Q5_1_L, Q4_K -> Q4_K_L and Q6_K -> Q6_K_L;
// every other as it is.
// Lossless.
DType stored_form(DType t, int64_t rows);
// The inverse: Q4_K_L -> Q4_K, Q8_0_R16 -> Q8_0, Q5_0_R16 -> Q5_0 and so
// on, every other as it is.
DType plain_form(DType t);
// n blocks of dtype t into their unit-lanes form, in place, block by block
// (Q5_0 -> Q5_0_L also for Q5_0_R16, whose rows to_row_groups then
// interleaves).
void to_stored_form(DType t, uint8_t* blocks, int64_t n);

// `rows` rows of `cols` weights of plain_form(stored), ggml's blocks, into
// stored's form in place: each block permuted (to_stored_form), then the
// rows interleaved by groups where stored is row-grouped (to_row_groups);
// nothing where stored is a plain dtype.
void to_stored_rows(DType stored, uint8_t* bytes, int64_t rows, int64_t cols);

// n int8 activations (n a multiple of 256) into the unit-lanes order.
void unit_lanes_activations(const int8_t* x, int8_t* out, int64_t n);

}  // namespace ck
