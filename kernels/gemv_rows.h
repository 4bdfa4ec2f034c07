// The per-target GEMV row functions as the static code of gemv.cc sees
// them. The kernels are compiled in three translation units, one per
// family, so that a parallel build compiles them side by side: gemv.cc
// (F32, F16, BF16), gemv_int8.cc (the 32-weight dtypes) and gemv_kquant.cc
// (the K-quants and IQ4_XS). Each exports its own Highway dispatch table.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/dtype.h"

namespace ck::qgemv {

// The per-block arrays of the int8 activations are padded with zeros to a
// multiple of this many blocks (gemv_int8-inl.h reduces four at a time).
inline constexpr int64_t kX8Pad = 4;
inline constexpr int64_t X8Blocks(int64_t cols) { return (cols / 32 + kX8Pad - 1) / kX8Pad * kX8Pad; }

// How far ahead of the kernels the weight stream is prefetched on this CPU
// (gemv-inl.h, StreamStep), chosen once at start-up (gemv.cc): each line
// l2_ahead bytes ahead into L2 (prefetcht2; 0: none), then l1_ahead bytes
// ahead into L1 (prefetcht0).
struct StreamDistances {
  int64_t l2_ahead;
  int64_t l1_ahead;  // 0: none
};
extern const StreamDistances kStreamDistances;
// The same for the VNNI kernels of rows interleaved by groups (Q8_0_R16 etc.),
// whose one stream per group of rows reads 544 bytes a block: on AMD each
// line 2 KB ahead with the L2 hint (prefetcht2), which Zen 4 streamed from
// DRAM 10-25 % faster than the row kernels' L1 prefetch 4 KB ahead (and the
// row kernels themselves at a third of their speed: docs/kernels.md,
// "Session 41"); on Intel as kStreamDistances (not measured there).
extern const StreamDistances kRowGroupStreamDistances;
// The same for Q4_K_R16, whose group reads 2304 bytes a super-block: 2 KB
// ahead is less than one step, and Zen 4 streamed a 5632 x 2048 matrix at
// 12 GB/s so, 21-23 GB/s with each line 6 KB ahead into L2 (Q4_K_L: 19.5;
// AVX2 target 17-18, Q4_K_L 16-21; docs/kernels.md, "Session 46"). On Intel
// the same L2 distance and each line 3 KB ahead into L1: with the
// prefetches spread over the super-block, 3-6 KB into L2 and 1.5-3 KB into
// L1 stream alike, and no distance mended the burst before the spread
// (docs/kernels.md, "Session 50").
extern const StreamDistances kSuperBlockGroupStreamDistances;

// The activations of one GEMV call in the forms its kernels multiply,
// computed once per call; null where no matrix of the call needs them.
struct XSums {
  // int8 per 32 values, prefill's rounding (QuantizeRowInt8): x ~ q8 * scale8 per block; the rounding error of
  // the spiky blocks rounded again, r8 * rscale8 (rscale8 zero elsewhere);
  // sum8 and sum16_8 the sums of both rounded forms per block and per 16
  // values; spiky_groups the groups of kX8Pad blocks that hold a spiky
  // one, n_spiky_groups entries of X8Blocks(cols) / kX8Pad per vector. The
  // per-block arrays have X8Blocks(cols) entries per vector (sum16_8 twice
  // as many).
  const int8_t* q8;
  const float* scale8;
  const float* sum8;
  const float* sum16_8;
  const int8_t* r8;
  const float* rscale8;
  const int32_t* spiky_groups;
  const int32_t* n_spiky_groups;
  // The same per group of kX8Pad blocks in the pair layout of the 4- and
  // 5-bit kernels (gemv_int8-inl.h, PairedGroup), for the row's whole
  // groups and a last group of two blocks: q8p and r8p hold, per pair of
  // blocks (a, b), the first 16 bytes of a, of b, then the last 16 of a, of
  // b; scale8p, rscale8p and sum8p hold 2 kX8Pad floats per group, blocks
  // 0, 0, 2, 2, 1, 1, 3, 3 (sum8p only in the first lane of each two, zero
  // in the second).
  const int8_t* q8p;
  const int8_t* r8p;
  const float* scale8p;
  const float* rscale8p;
  const float* sum8p;
  // The K-quants' form (DTypeTraits::gemv_x_block 256, one scale per
  // super-block): x ~ q8k * scale8k per 256 values; the rounding error of
  // the spiky super-blocks rounded again, r8k * rscale8k (rscale8k zero
  // elsewhere); sum16_8k and sum32_8k the sums of both rounded forms per 16
  // and per 32 values. Per vector: cols bytes, cols / 256 scales.
  const int8_t* q8k;
  const float* scale8k;
  const float* sum16_8k;
  const float* sum32_8k;
  const int8_t* r8k;
  const float* rscale8k;
  // The integer sums of q8k and of r8k per 16 values, each super-block's
  // 16 in the order of sub-blocks 0, 2, .. 14, 1, 3, .. 15 (the order in
  // which Q6_K's and Q3_K's kernels hold their scales). Per vector: cols /
  // 16. (r: stale outside the spiky super-blocks, where rscale8k is zero.)
  const int16_t* bsum16_8k;
  const int16_t* rbsum16_8k;
  // q8k and r8k in the unit-lanes order (unit_lanes.h) of Q4_K_L and
  // Q5_K_L. Per vector: cols bytes.
  const int8_t* q8kl;
  const int8_t* r8kl;
};

// Rows [r0, r1) of W times n vectors (x in fp32, xs rounded), into
// y[t * y_stride + r] (gemv-inl.h, GemvRows).
using GemvRowsFn = void (*)(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols,
                            const float* x, XSums xs, int64_t n, float* y, int64_t y_stride);

// The function of the target chosen now for dt, or null if the unit has
// none for it.
GemvRowsFn gemv_int8_rows_fn(DType dt);
GemvRowsFn gemv_kquant_rows_fn(DType dt);

}  // namespace ck::qgemv

// For a unit's HWY_ONCE part: its dispatch tables, and `fn` returning the
// dispatched entry point of each (name, kernel) of KERNELS.
#define CK_GEMV_EXPORT(name, K) HWY_EXPORT(GemvRows##name);
#define CK_GEMV_DISPATCH_CASE(name, K) \
  case DType::name:                    \
    return &HWY_DYNAMIC_DISPATCH(GemvRows##name);
#define CK_DEFINE_GEMV_ROWS_FN(fn, KERNELS)   \
  KERNELS(CK_GEMV_EXPORT)                     \
  GemvRowsFn fn(DType dt) {                   \
    switch (dt) {                             \
      KERNELS(CK_GEMV_DISPATCH_CASE)          \
      default:                                \
        return nullptr;                       \
    }                                         \
  }
