// Q8_0_R16 (bump dtype 20): a Q8_0 matrix stored with its rows interleaved
// in groups of 16, so that each 32-bit lane of a vector is a row and one
// byte dot product with four activation bytes broadcast adds four products
// to 16 rows at once: no horizontal sums, and one fp16 scale conversion per
// 16 rows and block (docs/kernels.md, "Session 41").
//
// The matrix has a multiple of 16 rows. Group g (rows 16g .. 16g + 15)
// takes the bytes that its 16 rows take in Q8_0, [16 g rb, 16 (g + 1) rb)
// for rb = row_bytes(Q8_0, cols), so rows are addressed as in Q8_0 at group
// granularity. Within a group, block column k (weights 32k .. 32k + 31 of
// every row) takes 16 x 34 = 544 bytes from 544 k:
//   bytes 0 .. 31: the 16 rows' fp16 scales d, row i's at 2i;
//   then 8 quads j = 0 .. 7 of 64 bytes: row i's quants 4j .. 4j + 3 at
//   32 + 64 j + 4 i.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ck {

inline constexpr int kRowGroup = 16;       // rows per group
inline constexpr int kRowGroupBlock = 544;  // bytes per group and block column
inline constexpr int kRowGroupScales = 2 * kRowGroup;  // its scales' bytes, before the quads
inline constexpr int kRowGroupQuad = 4 * kRowGroup;    // bytes per quad

// rows (a multiple of kRowGroup) of plain Q8_0 with `cols` weights each,
// into the grouped form at `out` (the same size; not in place).
void to_row_groups(const uint8_t* plain, int64_t rows, int64_t cols, uint8_t* out);
// Row r of a grouped matrix as plain Q8_0 blocks (row_bytes(Q8_0, cols) at out).
void gather_row(const uint8_t* grouped, int64_t cols, int64_t r, uint8_t* out);
// The same into a buffer of the calling thread's, valid until its next call.
const uint8_t* gathered_row(const uint8_t* grouped, int64_t cols, int64_t r);

}  // namespace ck
