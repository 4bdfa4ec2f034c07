// The row-grouped dtypes (bump codes 20-26: Q8_0_R16, Q4_0_R16, Q4_1_R16,
// Q5_0_R16, Q5_1_R16, Q4_K_R16, Q6_K_R16):
// a matrix of a block-quantized dtype stored with its rows interleaved in
// groups of 16, so that each 32-bit lane of a vector is a row and one byte
// dot product with four activation bytes broadcast adds four products to 16
// rows at once: no horizontal sums, and one fp16 conversion per 16 rows and
// block (docs/kernels.md, "Session 41", "Session 42", "Session 43",
// "Session 45").
//
// The matrix has a multiple of 16 rows. Group g (rows 16g .. 16g + 15)
// takes the bytes that its 16 rows take in the plain dtype, [16 g rb,
// 16 (g + 1) rb) for rb its row bytes, so rows are addressed as in the
// plain dtype at group granularity. Within a group, block column k (weights
// 32k .. 32k + 31 of every row) takes 16 B bytes from 16 B k, B the plain
// block's bytes, whose first H bytes (the header: d, or d and m) are 2-byte
// fields and the rest 4-byte words:
//   field f of row i at 32 f + 2 i (f < H / 2);
//   then word j of row i at 16 H + 64 j + 4 i.
// Q8_0 (H = 2): word j is quants 4j .. 4j + 3. Q4_0 (H = 2) and Q4_1
// (H = 4, d then m): word j is qs[4j .. 4j + 3], whose low nibbles are
// weights 4j .. 4j + 3 and high nibbles weights 16 + 4j .. 16 + 4j + 3.
// Q5_0 (H = 2) and Q5_1 (H = 4) are rows of Q5_0_L / Q5_1_L blocks
// (unit_lanes.h): word 0 is the transposed qh, whose byte b holds at bit q
// the fifth bit of quad q's weight b (quads 0-3 the low nibbles, 4-7 the
// high ones); words 1-4 are qs as Q4_0's words 0-3.
// Q4_K (H = 4, d then dmin; N = 256) keeps ggml's block: words 0-2 are its
// 12 packed scale bytes, words 3-34 qs, word 3 + j being qs[4j .. 4j + 3],
// whose low nibbles are weights 64c + 4i .. + 3 (sub-block 2c) and high
// nibbles 64c + 32 + 4i .. (sub-block 2c + 1), j = 8c + i.
// Q6_K (H = 2, its d at the end of ggml's block; N = 256) keeps ggml's
// block too: words 0-31 ql, 32-47 qh, 48-51 the 16 int8 scales.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/dtype.h"

namespace ck {

inline constexpr int kRowGroup = 16;  // rows per group

// Q6_K_R16's first word of ql, qh and the scales.
inline constexpr int kQ6QlWord = 0, kQ6QhWord = 32, kQ6ScaleWord = 48;

// Where a grouped dtype keeps what, per block column of a group.
struct RowGroupLayout {
  DType plain;       // the dtype of its rows
  int block_bytes;   // B: of the plain block
  int header_bytes;  // H: the plain block's 2-byte fields (d, m) before its
                     // quants
  int quant_word0 = 0;  // the first word of qs (1 after Q5's qh, 3 after Q4_K's scales)
  int block_weights = 32;  // N
  int header_at = 0;       // where the header lies in the plain block (Q6_K: 208)

  constexpr int column_bytes() const { return kRowGroup * block_bytes; }
  constexpr int fields() const { return header_bytes / 2; }
  // Where the words start in the plain block: after a leading header.
  constexpr int words_at() const { return header_at == 0 ? header_bytes : 0; }
  constexpr int words() const { return (block_bytes - header_bytes) / 4; }
  constexpr int field_at(int f, int i) const { return 2 * kRowGroup * f + 2 * i; }
  constexpr int word_at(int j, int i) const { return kRowGroup * header_bytes + 4 * kRowGroup * j + 4 * i; }
  // Quant word j of row i (qs[4j .. 4j + 3], or Q8_0's quants 4j ..).
  constexpr int quant_at(int j, int i) const { return word_at(quant_word0 + j, i); }
  constexpr int quant_words() const { return words() - quant_word0; }
  // Q5's transposed qh in word 0.
  constexpr bool has_high_bits() const { return plain == DType::Q5_0_L || plain == DType::Q5_1_L; }
};

// The layout of a row-grouped dtype (traits(t).row_group > 1).
constexpr RowGroupLayout row_group_layout(DType grouped) {
  switch (grouped) {
    case DType::Q4_0_R16:
      return {DType::Q4_0, 18, 2};
    case DType::Q4_1_R16:
      return {DType::Q4_1, 20, 4};
    case DType::Q5_0_R16:
      return {DType::Q5_0_L, 22, 2, 1};
    case DType::Q5_1_R16:
      return {DType::Q5_1_L, 24, 4, 1};
    case DType::Q4_K_R16:
      return {DType::Q4_K, 144, 4, 3, 256};
    case DType::Q6_K_R16:
      return {DType::Q6_K, 210, 2, 0, 256, 208};
    default:
      return {DType::Q8_0, 34, 2};
  }
}

// rows (a multiple of kRowGroup) of the layout's plain dtype with `cols` weights
// each, into `grouped`'s form at `out` (the same size; not in place).
void to_row_groups(DType grouped, const uint8_t* plain, int64_t rows, int64_t cols, uint8_t* out);
// Row r of a matrix of `grouped` as plain blocks (the plain dtype's row bytes
// at out).
void gather_row(DType grouped, const uint8_t* W, int64_t cols, int64_t r, uint8_t* out);
// The same into a buffer of the calling thread's, valid until its next call.
const uint8_t* gathered_row(DType grouped, const uint8_t* W, int64_t cols, int64_t r);

}  // namespace ck
