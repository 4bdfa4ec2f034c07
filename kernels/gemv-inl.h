// Per-target fused dequant-GEMV kernels and the fp32 GEMM of F32/F16/BF16,
// re-included by gemv.cc once per Highway target (HWY_TARGET_INCLUDE +
// foreach_target.h). The integer GEMM of the quantized dtypes (prefill) is
// gemm_int8-inl.h.
//
// Weights are decoded in registers, never written out. The block-quantized
// dtypes multiply bytes with the activations rounded to int8 as prefill
// rounds them (gemv_int8-inl.h, gemv_int8_kquant-inl.h); F32/F16/BF16
// multiply in fp32.

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

#ifndef CK_KERNELS_GEMV_XSUMS_
#define CK_KERNELS_GEMV_XSUMS_
namespace ck::qgemv {
// The per-block arrays of the int8 activations are padded with zeros to a
// multiple of this many blocks (gemv_int8-inl.h reduces four at a time).
inline constexpr int64_t kX8Pad = 4;
inline constexpr int64_t X8Blocks(int64_t cols) { return (cols / 32 + kX8Pad - 1) / kX8Pad * kX8Pad; }

// The activations of one GEMV call in the forms its kernels multiply,
// computed once per call; null where no matrix of the call needs them.
struct XSums {
  // int8 per 32 values, prefill's rounding (QuantizeRowInt8): x ~ q8 * scale8 per block; the rounding error of
  // the spiky blocks rounded again, r8 * rscale8 (rscale8 zero elsewhere);
  // sum8 and sum16_8 the sums of both rounded forms per block and per 16
  // values; spiky4 whether a group of kX8Pad blocks has a spiky one. The
  // per-block arrays have X8Blocks(cols) entries per vector (sum16_8 twice
  // as many).
  const int8_t* q8;
  const float* scale8;
  const float* sum8;
  const float* sum16_8;
  const int8_t* r8;
  const float* rscale8;
  const uint8_t* spiky4;
};
}  // namespace ck::qgemv
#endif

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 16>;
using VF = hn::Vec<DF>;

HWY_INLINE float Sum(VF v) { return hn::GetLane(hn::SumOfLanes(DF(), v)); }

// Every dtype kernel below provides, for one row of `cols` weights and kN
// activation vectors (several sequences decoding together):
//   template <int kN> static void Dot(const uint8_t* row, int64_t cols, const float* x, XSums xs, float* out)
//     out[t] = dot(row, vector t). Vector t is x + t * cols in fp32 and, in
//     the rounded forms, at the offsets VectorOf gives. Each block of weights is decoded once into
//     registers and multiplied with all kN vectors; every vector sees the
//     same operations in the same order as with kN = 1, so its result is
//     bit for bit the one it gets alone (Vectors<kN> gives their XSums).
//   static void Decode(const uint8_t* row, int64_t cols, float* out)  (F32, F16, BF16: for the float GEMM)

// The forms of vector t of a call whose vector 0 is xs.
HWY_INLINE XSums VectorOf(const XSums& xs, int64_t cols, int64_t t) {
  auto at = [t](const auto* p, int64_t stride) { return p == nullptr ? p : p + t * stride; };
  const int64_t nb8 = X8Blocks(cols);
  return {at(xs.q8, cols),       at(xs.scale8, nb8),  at(xs.sum8, nb8),     at(xs.sum16_8, 2 * nb8),
          at(xs.r8, cols),       at(xs.rscale8, nb8), at(xs.spiky4, nb8 / kX8Pad)};
}

template <int kN>
HWY_INLINE std::array<XSums, kN> Vectors(const XSums& xs, int64_t cols) {
  std::array<XSums, kN> x;
  for (int t = 0; t < kN; ++t) x[t] = VectorOf(xs, cols, t);
  return x;
}

struct F32Kernel {
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float* x, XSums, float* out) {
    const DF df;
    const auto* w = reinterpret_cast<const float*>(row);
    const int64_t N = static_cast<int64_t>(hn::Lanes(df));
    VF a0[kN], a1[kN];
    for (int t = 0; t < kN; ++t) a0[t] = a1[t] = hn::Zero(df);
    int64_t i = 0;
    for (; i + 2 * N <= cols; i += 2 * N) {
      const VF w0 = hn::LoadU(df, w + i), w1 = hn::LoadU(df, w + i + N);
      for (int t = 0; t < kN; ++t) {
        a0[t] = hn::MulAdd(w0, hn::LoadU(df, x + t * cols + i), a0[t]);
        a1[t] = hn::MulAdd(w1, hn::LoadU(df, x + t * cols + i + N), a1[t]);
      }
    }
    for (int t = 0; t < kN; ++t) {
      float tail = 0.0f;
      for (int64_t j = i; j < cols; ++j) tail += w[j] * x[t * cols + j];
      out[t] = Sum(hn::Add(a0[t], a1[t])) + tail;
    }
  }
  static void Decode(const uint8_t* row, int64_t cols, float* out) {
    std::memcpy(out, row, static_cast<size_t>(cols) * sizeof(float));
  }
};

// F16 and BF16: one widening load per vector; cols is a multiple of 32
// whenever these appear as matrices, the scalar tail covers the rest.
template <typename T>
struct HalfKernel {
  using DH = hn::Rebind<T, DF>;
  static VF Load(const uint16_t* p) { return hn::PromoteTo(DF(), hn::LoadU(DH(), reinterpret_cast<const T*>(p))); }
  static float Scalar(uint16_t h) {
    if constexpr (std::is_same_v<T, hwy::float16_t>) return fp16_to_fp32(h);
    return bf16_to_fp32(h);
  }
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float* x, XSums, float* out) {
    const DF df;
    const auto* w = reinterpret_cast<const uint16_t*>(row);
    const int64_t N = static_cast<int64_t>(hn::Lanes(df));
    VF a0[kN], a1[kN];
    for (int t = 0; t < kN; ++t) a0[t] = a1[t] = hn::Zero(df);
    int64_t i = 0;
    for (; i + 2 * N <= cols; i += 2 * N) {
      const VF w0 = Load(w + i), w1 = Load(w + i + N);
      for (int t = 0; t < kN; ++t) {
        a0[t] = hn::MulAdd(w0, hn::LoadU(df, x + t * cols + i), a0[t]);
        a1[t] = hn::MulAdd(w1, hn::LoadU(df, x + t * cols + i + N), a1[t]);
      }
    }
    for (int t = 0; t < kN; ++t) {
      float tail = 0.0f;
      for (int64_t j = i; j < cols; ++j) tail += Scalar(w[j]) * x[t * cols + j];
      out[t] = Sum(hn::Add(a0[t], a1[t])) + tail;
    }
  }
  static void Decode(const uint8_t* row, int64_t cols, float* out) {
    const DF df;
    const auto* w = reinterpret_cast<const uint16_t*>(row);
    const int64_t N = static_cast<int64_t>(hn::Lanes(df));
    int64_t i = 0;
    for (; i + N <= cols; i += N) hn::StoreU(Load(w + i), df, out + i);
    for (; i < cols; ++i) out[i] = Scalar(w[i]);
  }
};

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

// The scales of a Q4_K / Q5_K block (their kernel: gemv_int8-inl.h).
struct Q45_KScales {
  // sc[0..7] then m[0..7] of a block, one byte each: the 6-bit fields are
  // unpacked four at a time in 32-bit words (as ggml does).
  static HWY_INLINE void Unpack(const uint8_t* scales, uint8_t* sc_m) {
    uint32_t u[3];
    std::memcpy(u, scales, sizeof(u));
    const uint32_t packed[4] = {
        u[0] & 0x3F3F3F3Fu,                                               // sc 0..3
        (u[2] & 0x0F0F0F0Fu) | (((u[0] >> 6) & 0x03030303u) << 4),        // sc 4..7
        u[1] & 0x3F3F3F3Fu,                                               // m 0..3
        ((u[2] >> 4) & 0x0F0F0F0Fu) | (((u[1] >> 6) & 0x03030303u) << 4),  // m 4..7
    };
    std::memcpy(sc_m, packed, sizeof(packed));
  }
  // out[i] = factor * bytes[i] for 8 bytes, converted with vectors.
  static HWY_INLINE void ScaleBytes(const uint8_t* bytes, float factor, float* out) {
    const hn::CappedTag<float, 8> d8;
    const hn::Rebind<int32_t, decltype(d8)> di8;
    const hn::Rebind<uint8_t, decltype(d8)> du8;
    for (size_t i = 0; i < 8; i += hn::Lanes(d8)) {
      hn::StoreU(hn::Mul(hn::ConvertTo(d8, hn::PromoteTo(di8, hn::LoadU(du8, bytes + i))), hn::Set(d8, factor)), d8,
                 out + i);
    }
  }
};

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#include "kernels/gemv_int8-inl.h"  // Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL
#include "kernels/gemv_int8_kquant-inl.h"  // Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

// y[r] = dot(row r, x) for rows [r0, r1). The row two ahead is prefetched
// line by line while this one is multiplied: the hardware prefetcher alone
// left a core waiting on DRAM for a third of the time (measured in
// docs/kernels.md: +25-40 % GB/s from DRAM, -2 % with the weights in cache).
// For n vectors (several sequences decoding together), Y[t * y_stride + r]:
// each row, read once, is multiplied with the vectors four at a time (the
// most whose accumulators stay in AVX2's 16 registers), then two, then one.
constexpr int64_t kPrefetchRows = 2;
constexpr int kMaxVectorsPerDot = 4;

template <class K, int kN>
HWY_INLINE void DotInto(const uint8_t* row, int64_t cols, const float* x, const XSums& xs, int64_t t, float* y,
                        int64_t y_stride) {
  float out[kN];
  K::template Dot<kN>(row, cols, x + t * cols, VectorOf(xs, cols, t), out);
  for (int u = 0; u < kN; ++u) y[(t + u) * y_stride] = out[u];
}

template <class K>
void GemvRows(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols, const float* x,
              XSums xs, int64_t n, float* y, int64_t y_stride) {
  for (int64_t r = r0; r < r1; ++r) {
    if (r + kPrefetchRows < r1) {
      const uint8_t* ahead = W + static_cast<size_t>(r + kPrefetchRows) * row_bytes;
      for (size_t off = 0; off < row_bytes; off += 64) hwy::Prefetch(ahead + off);
    }
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

// The GEMM micro-kernel: kR decoded rows times kT activation rows, kR*kT
// vector accumulators over the shared length `cols`.
template <int kR, int kT>
HWY_INLINE void MicroTile(const float* w, const float* X, int64_t cols, float* out, int64_t out_stride) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  VF acc[kR][kT];
  for (int r = 0; r < kR; ++r)
    for (int t = 0; t < kT; ++t) acc[r][t] = hn::Zero(df);
  int64_t i = 0;
  for (; i + N <= cols; i += N) {
    VF xv[kT];
    for (int t = 0; t < kT; ++t) xv[t] = hn::LoadU(df, X + t * cols + i);
    for (int r = 0; r < kR; ++r) {
      const VF wv = hn::LoadU(df, w + r * cols + i);
      for (int t = 0; t < kT; ++t) acc[r][t] = hn::MulAdd(wv, xv[t], acc[r][t]);
    }
  }
  for (int r = 0; r < kR; ++r) {
    for (int t = 0; t < kT; ++t) {
      float tail = 0.0f;
      for (int64_t j = i; j < cols; ++j) tail += w[r * cols + j] * X[t * cols + j];
      out[t * out_stride + r] = Sum(acc[r][t]) + tail;
    }
  }
}

// AVX-512 has 32 vector registers: 4x4 accumulators keep the FMA units busy.
// With 16 registers (AVX2, SSE4) a 4x2 tile avoids spills.
#if HWY_TARGET <= HWY_AVX3
constexpr int kTileT = 4;
#else
constexpr int kTileT = 2;
#endif
constexpr int kTileR = 4;

template <int kT>
void TokensTile(const float* w, int64_t rows_in_buf, const float* X, int64_t cols, float* Y, int64_t y_stride) {
  for (int64_t r = 0; r < rows_in_buf; r += kTileR) MicroTile<kTileR, kT>(w + r * cols, X, cols, Y + r, y_stride);
}

// Y[t*rows + r] for rows [r0, r1) and all n tokens: the rows are decoded
// once into `buf` (rows_per_tile * cols floats, rows padded to kTileR with
// zeros) and reused for every token tile; tmp holds kTileT x padded rows.
template <class K>
void GemmRows(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols, const float* X, int64_t n,
              float* Y, int64_t rows, float* buf, float* tmp) {
  const int64_t nr = r1 - r0;
  const int64_t padded = (nr + kTileR - 1) / kTileR * kTileR;
  for (int64_t r = 0; r < nr; ++r) K::Decode(W + static_cast<size_t>(r0 + r) * row_bytes, cols, buf + r * cols);
  std::memset(buf + nr * cols, 0, static_cast<size_t>((padded - nr) * cols) * sizeof(float));
  int64_t t = 0;
  for (; t + kTileT <= n; t += kTileT) {
    TokensTile<kTileT>(buf, padded, X + t * cols, cols, tmp, padded);
    for (int u = 0; u < kTileT; ++u) std::memcpy(Y + (t + u) * rows + r0, tmp + u * padded, nr * sizeof(float));
  }
  for (; t < n; ++t) {
    TokensTile<1>(buf, padded, X + t * cols, cols, tmp, padded);
    std::memcpy(Y + t * rows + r0, tmp, nr * sizeof(float));
  }
}

const char* CompiledTargetName() { return hwy::TargetName(HWY_TARGET); }

// One GemvRowsNAME per native dtype and one GemmRowsNAME per float dtype
// (the quantized ones multiply in gemm_int8-inl.h); gemv.cc exports them.
#define CK_GEMM_FLOAT_KERNELS(ENTRY) ENTRY(F32, F32Kernel) ENTRY(F16, HalfKernel<hwy::float16_t>) \
  ENTRY(BF16, HalfKernel<hwy::bfloat16_t>)
#define CK_GEMV_KERNELS(ENTRY) CK_GEMM_FLOAT_KERNELS(ENTRY) ENTRY(Q8_0, Int8Kernel<BlockQ8_0>) ENTRY(Q4_0, Int8Kernel<BlockQ4_0>) \
  ENTRY(Q4_1, Int8Kernel<BlockQ4_1>) ENTRY(Q5_0, Int8Kernel<BlockQ5_0>) ENTRY(Q5_1, Int8Kernel<BlockQ5_1>) \
  ENTRY(IQ4_NL, Int8Kernel<BlockIQ4_NL>) \
  ENTRY(Q4_K, Q45_KInt8Kernel<BlockQ4_K>) ENTRY(Q5_K, Q45_KInt8Kernel<BlockQ5_K>)   \
  ENTRY(Q6_K, Scaled16Kernel<BlockQ6_K>) ENTRY(Q2_K, Scaled16Kernel<BlockQ2_K>) \
  ENTRY(Q3_K, Scaled16Kernel<BlockQ3_K>) ENTRY(IQ4_XS, IQ4_XSInt8Kernel)

#define CK_DEFINE_GEMV_ENTRY_POINT(name, K)                                                            \
  void GemvRows##name(const uint8_t* W, size_t rb, int64_t r0, int64_t r1, int64_t cols, const float* x, \
                      XSums xs, int64_t n, float* y, int64_t y_stride) {                                 \
    GemvRows<K>(W, rb, r0, r1, cols, x, xs, n, y, y_stride);                                             \
  }
#define CK_DEFINE_GEMM_ENTRY_POINT(name, K)                                                            \
  void GemmRows##name(const uint8_t* W, size_t rb, int64_t r0, int64_t r1, int64_t cols, const float* X, \
                      int64_t n, float* Y, int64_t rows, float* buf, float* tmp) {                      \
    GemmRows<K>(W, rb, r0, r1, cols, X, n, Y, rows, buf, tmp);                                           \
  }
CK_GEMV_KERNELS(CK_DEFINE_GEMV_ENTRY_POINT)
CK_GEMM_FLOAT_KERNELS(CK_DEFINE_GEMM_ENTRY_POINT)
#undef CK_DEFINE_GEMV_ENTRY_POINT
#undef CK_DEFINE_GEMM_ENTRY_POINT

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMV_INL_H_
