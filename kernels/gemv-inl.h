// Per-target GEMV machinery that the three kernel units share (gemv.cc,
// gemv_int8.cc, gemv_kquant.cc; gemv_rows.h), re-included by each once per
// Highway target (HWY_TARGET_INCLUDE + foreach_target.h): the vectors of a
// call, the row loop and its entry points. The kernels: gemv_float-inl.h
// (F32, F16, BF16, and their fp32 GEMM), gemv_int8-inl.h (the 32-weight
// dtypes), gemv_int8_kquant-inl.h (the K-quants, IQ4_XS;
// gemv_int8_kquant_avx512-inl.h, their AVX-512 forms). The integer GEMM
// of the quantized dtypes (prefill) is gemm_int8-inl.h.
//
// Weights are decoded in registers, never written out. The block-quantized
// dtypes multiply bytes with the activations rounded to int8 as prefill
// rounds them; F32/F16/BF16 multiply in fp32.

// Per-target include guard (the Highway "toggle" idiom).
#if defined(CK_KERNELS_GEMV_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_INL_H_
#undef CK_KERNELS_GEMV_INL_H_
#else
#define CK_KERNELS_GEMV_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

#include "kernels/blocks.h"
#include "kernels/fp16.h"
#include "kernels/gemv.h"
#include "kernels/gemv_rows.h"
#include "kernels/hwy_portable.h"

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 16>;
using VF = hn::Vec<DF>;

HWY_INLINE float Sum(VF v) { return hn::GetLane(hn::SumOfLanes(DF(), v)); }
// Every dtype kernel (gemv_float-inl.h, gemv_int8-inl.h, gemv_int8_kquant-inl.h)
// provides, for one row of `cols` weights and kN
// activation vectors (several sequences decoding together):
//   template <int kN> static void Dot(const uint8_t* row, int64_t cols, const float* x, const XSums& xs, float* out)
//     (HWY_INLINE where the row loops call it: out of line, Q5_K ran 5-8 %
//     slower in cache, session 28)
//     out[t] = dot(row, vector t). Vector t is x + t * cols in fp32 and, in
//     the rounded forms, at the offsets VectorOf gives. Each block of weights is decoded once into
//     registers and multiplied with all kN vectors; every vector sees the
//     same operations in the same order as with kN = 1, so its result is
//     bit for bit the one it gets alone (Vectors<kN> gives their XSums).
//   Optionally, for one vector, kRows rows at a time (a power of two, 2 to kRowsPerDot):
//   template <int kRows>
//   static void DotRows(const uint8_t* row, size_t row_bytes, int64_t cols, const XSums& xs, float* out)
//     out[i] = dot(row i, x), each row's result bit for bit the one Dot gives it.
//   static void Decode(const uint8_t* row, int64_t cols, float* out)  (F32, F16, BF16: for the float GEMM)
// A kernel of rows interleaved in groups (Q8_0_R16) provides kRowGroup and
//   static void Rows(W, row_bytes, r0, r1, cols, x, xs, n, y, y_stride)
//     GemvRows' work, r0 and r1 multiples of kRowGroup.

// The forms of vector t of a call whose vector 0 is xs.
HWY_INLINE XSums VectorOf(const XSums& xs, int64_t cols, int64_t t) {
  auto at = [t](const auto* p, int64_t stride) { return p == nullptr ? p : p + t * stride; };
  const int64_t nb8 = X8Blocks(cols);
  return {at(xs.q8, cols),         at(xs.scale8, nb8),       at(xs.sum8, nb8),     at(xs.sum16_8, 2 * nb8),
          at(xs.r8, cols),         at(xs.rscale8, nb8),      at(xs.spiky_groups, nb8 / kX8Pad), at(xs.n_spiky_groups, 1),
          at(xs.q8p, cols),        at(xs.r8p, cols),         at(xs.scale8p, 2 * nb8),
          at(xs.rscale8p, 2 * nb8), at(xs.sum8p, 2 * nb8),
          at(xs.q8k, cols),         at(xs.scale8k, cols / 256), at(xs.sum16_8k, cols / 16), at(xs.sum32_8k, cols / 32),
          at(xs.r8k, cols),         at(xs.rscale8k, cols / 256),
          at(xs.bsum16_8k, cols / 16), at(xs.rbsum16_8k, cols / 16),
          at(xs.q8kl, cols),        at(xs.r8kl, cols)};
}

template <int kN>
HWY_INLINE std::array<XSums, kN> Vectors(const XSums& xs, int64_t cols) {
  std::array<XSums, kN> x;
  for (int t = 0; t < kN; ++t) x[t] = VectorOf(xs, cols, t);
  return x;
}
// Two fp16 values (adjacent in memory) to float with the target's
// conversion instruction (vcvtph2ps where there is one).
HWY_INLINE void LoadHalf2(const uint16_t* p, float* out) {
  const hn::CappedTag<float, 2> d2;
  const hn::Rebind<hwy::float16_t, decltype(d2)> dh;
  const auto* h = reinterpret_cast<const hwy::float16_t*>(p);
  for (size_t i = 0; i < 2; i += hn::Lanes(d2)) hn::StoreU(hn::PromoteTo(d2, hn::LoadU(dh, h + i)), d2, out + i);
}

HWY_INLINE float LoadHalf(const uint16_t* p) {
  const hn::CappedTag<float, 1> d1;
  const hn::Rebind<hwy::float16_t, decltype(d1)> dh;
  return hn::GetLane(hn::PromoteTo(d1, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p))));
}
// The weights' stream prefetched as a kernel moves on, at this CPU's
// distances (kStreamDistances, gemv_rows.h). A matrix's rows are
// contiguous, so a row starts where the last one's prefetches left off.
// Intel: each line 3 KB ahead into L2 (prefetcht2), then 1 KB ahead into
// L1 (prefetcht0). A prefetch into L1 holds one of the core's few L1 fill
// buffers until its line arrives; into L2 it does not, so more lines are
// in flight from DRAM. With every line 2 KB ahead into L1, as until
// session 19, 1 thread decoded the 1.1B-shaped Q8_0 file at 9.5 t/s on the
// Xeon; this way at 11.3 (+20 %, AVX2 target +22 %; Q4_K_M +6 %, Q6_K +5 %;
// docs/kernels.md, session 20). AMD: every prefetch hint fills L1, so the
// two steps were two L1 prefetches a line, and Zen 3 decoded 15-25 % slower
// with them than with none; one prefetch a line 4 KB ahead (session 24).
constexpr int64_t kStreamAhead = 3072;  // PrefetchStart's lines into L2
HWY_INLINE void PrefetchToL2(const void* p) { __builtin_prefetch(p, 0, 1); }
// For a kernel step of kBytes at p (one block, or a group of blocks): the
// lines at p + 64 i, i < ceil(kBytes / 64), that far ahead, a fixed count
// with no test. Steps one after the other miss no line (where a step's
// prefetches stop short of its last line, that line starts the next step),
// and some lines are asked for twice (Q4_K: 3 per 144 bytes, for 2.25
// lines). Until session 23 a loop asked for each line once, with a test
// and a branch per line: this way Q4_K_M decoded 2-3 % faster (AVX2 target
// 3-4 %) and SmolLM2 Q4_1 4-8 %, the others level (docs/kernels.md).
template <size_t kBytes>
HWY_INLINE void StreamStep(const void* p, const StreamDistances& distances = kStreamDistances) {
  const auto* bytes = static_cast<const uint8_t*>(p);
  const int64_t l2 = distances.l2_ahead, l1 = distances.l1_ahead;
  for (size_t off = 0; off < kBytes; off += 64) {
    if (l2 != 0) PrefetchToL2(bytes + l2 + off);
    if (l1 != 0) hwy::Prefetch(bytes + l1 + off);
  }
}

// For the float kernels' short steps (kStep bytes, 32-128): each line
// kFloatAhead bytes past p into L1, a prefetch per line of the step and no
// test, as a test per step (the loop StreamStep replaced) cost the F16
// kernel 16 % in cache (this: 6 %, session 15). Where a step is half a line,
// each line is asked for twice. (The two-step stream above was measured on
// the quantized kernels only.)
constexpr size_t kFloatAhead = 2048;
template <size_t kStep>
HWY_INLINE void PrefetchStep(const void* p) {
  for (size_t off = 0; off < kStep; off += 64) hwy::Prefetch(static_cast<const uint8_t*>(p) + kFloatAhead + off);
}

// y[r] = dot(row r, x) for rows [r0, r1).
// For n vectors (several sequences decoding together), Y[t * y_stride + r]:
// each row, read once, is multiplied with the vectors four at a time (the
// most whose accumulators stay in AVX2's 16 registers), then two, then one.
constexpr int kMaxVectorsPerDot = 4;
// The most bytes that the rows of one DotRows call may span.
constexpr size_t kRowsReach = 4096;

template <class K, int kN>
HWY_INLINE void DotInto(const uint8_t* row, int64_t cols, const float* x, const XSums& xs, int64_t t, float* y,
                        int64_t y_stride) {
  float out[kN];
  K::template Dot<kN>(row, cols, x + t * cols, VectorOf(xs, cols, t), out);
  for (int u = 0; u < kN; ++u) y[(t + u) * y_stride] = out[u];
}

// The first kStreamAhead bytes of rows [r0, r1), into L2, which no row's
// stream covers where the chunk does not follow the one its thread read
// last (a thread's first chunk of a matrix, or one taken from a slower
// thread's share: gemv.cc); without this its first lines were demand
// misses, a few at a time (docs/kernels.md, session 16).
HWY_INLINE void PrefetchStart(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1) {
  const uint8_t* first = W + static_cast<size_t>(r0) * row_bytes;
  const size_t bytes = std::min<size_t>(kStreamAhead, static_cast<size_t>(r1 - r0) * row_bytes);
  for (size_t off = 0; off < bytes; off += 64) PrefetchToL2(first + off);
}

// Rows [r, r1) of W times one vector, kRows at a time while kRows rows
// fit in the stream's reach, else fewer (halved, down to two); returns the
// first row left. The rows' stream is prefetched in address order, kRows
// rows at a time, so that all of them start within its reach
// (Int8Kernel::RowsDot).
template <class K, int kRows>
HWY_INLINE int64_t DotRowsInReach(const uint8_t* W, size_t row_bytes, int64_t r, int64_t r1, int64_t cols,
                                  const XSums& xs, float* y) {
  if constexpr (kRows >= 2) {
    if (static_cast<size_t>(kRows) * row_bytes > kRowsReach) {
      return DotRowsInReach<K, kRows / 2>(W, row_bytes, r, r1, cols, xs, y);
    }
    for (; r + kRows <= r1; r += kRows) {
      K::template DotRows<kRows>(W + static_cast<size_t>(r) * row_bytes, row_bytes, cols, xs, y + r);
    }
  }
  return r;
}

// Rows [r, r1) times one vector (decode), in a function of its own: beside
// the loops over several vectors in one function, the one-vector loop
// reloaded its values from the stack at every row, and some kernels' rows
// were calls (Zen 3 in cache, 1024 x 2048: Q8_0 80 -> 75 us, Q6_K 82 ->
// 78, Q3_K 115 -> 90, the others level to 5 % faster; docs/kernels.md,
// session 28). xs by value: by reference, SmolLM2's short rows ran 5 %
// slower.
template <class K>
HWY_NOINLINE void GemvRowsOneVector(const uint8_t* W, size_t row_bytes, int64_t r, int64_t r1, int64_t cols,
                                    const float* x, XSums xs, float* y) {
  // Kernels that take several rows at a time (DotRows), with each row's
  // result the one Dot gives it alone.
  if constexpr (requires { K::kRowsPerDot; }) r = DotRowsInReach<K, K::kRowsPerDot>(W, row_bytes, r, r1, cols, xs, y);
  for (; r < r1; ++r) DotInto<K, 1>(W + static_cast<size_t>(r) * row_bytes, cols, x, xs, 0, y + r, 0);
}

template <class K>
void GemvRows(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols, const float* x,
              XSums xs, int64_t n, float* y, int64_t y_stride) {
  PrefetchStart(W, row_bytes, r0, r1);
  // Kernels of rows interleaved in groups (gemv_int8_rows16-inl.h) take
  // whole groups and any number of vectors.
  if constexpr (requires { K::kRowGroup; }) {
    K::Rows(W, row_bytes, r0, r1, cols, x, xs, n, y, y_stride);
  } else if (n == 1) {
    GemvRowsOneVector<K>(W, row_bytes, r0, r1, cols, x, xs, y);
  } else {
    for (int64_t r = r0; r < r1; ++r) {
      const uint8_t* row = W + static_cast<size_t>(r) * row_bytes;
      int64_t t = 0;
      for (; t + kMaxVectorsPerDot <= n; t += kMaxVectorsPerDot) {
        DotInto<K, kMaxVectorsPerDot>(row, cols, x, xs, t, y + r, y_stride);
      }
      if (t + 2 <= n) {
        DotInto<K, 2>(row, cols, x, xs, t, y + r, y_stride);
        t += 2;
      }
      if (t < n) DotInto<K, 1>(row, cols, x, xs, t, y + r, y_stride);
    }
  }
}
// GemvRowsNAME(...): the entry point of kernel K, which the unit's
// HWY_EXPORT (gemv_rows.h) dispatches to.
#define CK_DEFINE_GEMV_ENTRY_POINT(name, K)                                                            \
  void GemvRows##name(const uint8_t* W, size_t rb, int64_t r0, int64_t r1, int64_t cols, const float* x, \
                      XSums xs, int64_t n, float* y, int64_t y_stride) {                                 \
    GemvRows<K>(W, rb, r0, r1, cols, x, xs, n, y, y_stride);                                             \
  }
}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMV_INL_H_
