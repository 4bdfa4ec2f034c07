// Per-target fused dequant-GEMV kernels and the fp32 GEMM of F32/F16/BF16,
// re-included by gemv.cc once per Highway target (HWY_TARGET_INCLUDE +
// foreach_target.h). The integer GEMM of the quantized dtypes (prefill) is
// gemm_int8-inl.h.
//
// Weights are widened in registers, never written out. The 256-weight
// dtypes (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS) multiply them as int16 with
// the activations rounded to int16 per 128 values (the measured decision in
// docs/kernels.md): exact int32 sums per half block, scaled once in fp32.
// The 32-weight dtypes (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL) multiply bytes
// with activations rounded as prefill rounds them (gemv_int8-inl.h). F32/F16/BF16 multiply in fp32. Float vectors are capped at 16 lanes so
// that one vector never spans two sub-blocks (Q6_K's are 16 weights).

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
  // int16 (the K-quants and IQ4_XS): sums of the int16-rounded activations
  // over each 16 and each 32 values (they turn per-weight offsets into one
  // term per sub-block), and x quantized to int16 per
  // kInt16ActivationGroup values: x[i] ~ q16[i] * scale32[i / 32] (scale =
  // max |x| / 32767 over the group, stored once per 32 values).
  const float* by16;
  const float* by32;
  const int16_t* q16;
  const float* scale32;
  // int8 per 32 values (the 32-weight dtypes), prefill's rounding
  // (QuantizeRowInt8): x ~ q8 * scale8 per block; the rounding error of
  // the spiky blocks rounded again, r8 * rscale8 (rscale8 zero elsewhere);
  // sum8 the sums of both rounded forms per block; spiky4 whether a group of
  // kX8Pad blocks has a spiky one. The per-block arrays have X8Blocks(cols)
  // entries per vector.
  const int8_t* q8;
  const float* scale8;
  const float* sum8;
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
using DI = hn::RebindToSigned<DF>;
using DU8 = hn::Rebind<uint8_t, DF>;
using DI8 = hn::Rebind<int8_t, DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;

// The integer path: int16 weights times int16 activations, pairs summed
// into int32 lanes (vpmaddwd), 32 weights per AVX-512 instruction.
using D16 = hn::CappedTag<int16_t, 32>;
using D32 = hn::RepartitionToWide<D16>;
using DF32 = hn::Rebind<float, D32>;
using V16 = hn::Vec<D16>;
using V32 = hn::Vec<D32>;
using VF32 = hn::Vec<DF32>;

HWY_INLINE V16 LoadI8To16(const int8_t* p) { return hn::PromoteTo(D16(), hn::LoadU(hn::Rebind<int8_t, D16>(), p)); }

// sum += pairwise products of the int16 vector w and the int16 activations
// at xq (any int16 vector width).
template <class V>
HWY_INLINE hn::Vec<hn::RepartitionToWide<hn::DFromV<V>>> MulAcc(V w, const int16_t* xq,
                                                                hn::Vec<hn::RepartitionToWide<hn::DFromV<V>>> sum) {
  using D = hn::DFromV<V>;
#if HWY_TARGET == HWY_AVX3_DL
  // One vpdpwssd (AVX512-VNNI, part of AVX3_DL) instead of vpmaddwd + vpaddd.
  // Highway 1.0.3 has no op for it and its AVX3_DL target attribute lacks
  // avx512vnni, so the intrinsic would not inline: asm, x read from memory.
  struct X { int16_t v[hn::MaxLanes(D())]; };
  auto acc = sum.raw;
  if constexpr (sizeof(acc) == 64 || sizeof(acc) == 32) {
    asm("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(w.raw), "m"(*reinterpret_cast<const X*>(xq)));
    return decltype(sum){acc};
  }
#endif
  // x86 keeps all in `sum` (RearrangeToOddPlusEven is the identity).
  auto unused = hn::Zero(hn::RepartitionToWide<D>());
  return hn::ReorderWidenMulAccumulate(hn::RepartitionToWide<D>(), w, hn::LoadU(D(), xq), sum, unused);
}

// Per-lane int16 values picked from a 16-byte table by a byte shuffle (one
// instruction; the table is repeated in every 128-bit block): each int16
// lane of `control` holds two byte indices, an index of 0x80 gives a zero
// byte. This is how the kernels spread per-sub-block scales over lanes (and
// map IQ4_NL's indices to its codebook). Any int16 vector width.
template <class V>
HWY_INLINE V ShuffleTable(const uint8_t* table, V control) {
  using D = hn::DFromV<V>;
#if HWY_TARGET == HWY_SCALAR
  const int c = static_cast<uint16_t>(hn::GetLane(control));
  const int lo = table[c & 0xF], hi = (c & 0x8000) ? 0 : table[(c >> 8) & 0xF];
  return hn::Set(D(), static_cast<int16_t>(lo | hi << 8));
#else
  const hn::Repartition<uint8_t, D> du8;
  return hn::BitCast(D(), hn::TableLookupBytesOr0(hn::LoadDup128(du8, table), hn::BitCast(du8, control)));
#endif
}

// Lanes() bytes widened to int32.
HWY_INLINE VI LoadU8(const uint8_t* p) { return hn::PromoteTo(DI(), hn::LoadU(DU8(), p)); }
HWY_INLINE VI LoadI8(const int8_t* p) { return hn::PromoteTo(DI(), hn::LoadU(DI8(), p)); }

HWY_INLINE float Sum(VF v) { return hn::GetLane(hn::SumOfLanes(DF(), v)); }

// Every dtype kernel below provides, for one row of `cols` weights and kN
// activation vectors (several sequences decoding together):
//   template <int kN> static void Dot(const uint8_t* row, int64_t cols, const float* x, XSums xs, float* out)
//     out[t] = dot(row, vector t). Vector t is x + t * cols in fp32 and, in
//     the int16 form, q16 + t * cols, scale32 and by32 + t * cols / 32, by16
//     + t * cols / 16 (VectorOf). Each block of weights is decoded once into
//     registers and multiplied with all kN vectors; every vector sees the
//     same operations in the same order as with kN = 1, so its result is
//     bit for bit the one it gets alone (Vectors<kN> gives their XSums).
//   static void Decode(const uint8_t* row, int64_t cols, float* out)  (F32, F16, BF16: for the float GEMM)

// The forms of vector t of a call whose vector 0 is xs.
HWY_INLINE XSums VectorOf(const XSums& xs, int64_t cols, int64_t t) {
  auto at = [t](const auto* p, int64_t stride) { return p == nullptr ? p : p + t * stride; };
  const int64_t nb8 = X8Blocks(cols);
  return {at(xs.by16, cols / 16), at(xs.by32, cols / 32), at(xs.q16, cols),       at(xs.scale32, cols / 32),
          at(xs.q8, cols),        at(xs.scale8, nb8),     at(xs.sum8, nb8),       at(xs.r8, cols),
          at(xs.rscale8, nb8),    at(xs.spiky4, nb8 / kX8Pad)};
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

// Q4_K and Q5_K: w = d*sc[j]*q - dmin*m[j], q of 4 bits (Q5_K: plus a fifth
// from qh). sc[j]*q is formed in int16 lanes and summed with q*xq over a half
// block (one activation scale), then scaled once; the minimum terms need only
// the sums of x per sub-block (XSums::by32), which the caller computes once
// per x. The two share the scale packing and the layout of the nibbles.
template <class Block>
struct Q45_KKernel {
  static constexpr bool kHighBit = std::is_same_v<Block, BlockQ5_K>;
  // q of sub-blocks 2g (low nibbles) and 2g+1 (high nibbles) at lanes
  // [i, i + Lanes(d)) of group g, in lanes of tag D (int16 for the dot
  // product, int32 for decoding); Q5_K's fifth bits are bits 2g and 2g+1 of
  // qh[i...].
  template <class D>
  static HWY_INLINE void Quants(D d, const Block& b, int g, size_t i, hn::Vec<D>& lo, hn::Vec<D>& hi) {
    const hn::Rebind<uint8_t, D> du8;
    const auto q = hn::PromoteTo(d, hn::LoadU(du8, b.qs + 32 * g + i));
    lo = hn::And(q, hn::Set(d, 0xF));
    hi = hn::ShiftRight<4>(q);
    if constexpr (kHighBit) {
      const auto qh = hn::PromoteTo(d, hn::LoadU(du8, b.qh + i));
      const auto one = hn::Set(d, 1);
      lo = hn::Or(lo, hn::ShiftLeft<4>(hn::And(hn::ShiftRightSame(qh, 2 * g), one)));
      hi = hn::Or(hi, hn::ShiftLeft<4>(hn::And(hn::ShiftRightSame(qh, 2 * g + 1), one)));
    }
  }
  // sc[0..7] then m[0..7] of a block, one byte each: the 6-bit fields are
  // unpacked four at a time in 32-bit words (as ggml does).
  static HWY_INLINE void Unpack(const Block& b, uint8_t* sc_m) {
    uint32_t u[3];
    std::memcpy(u, b.scales, sizeof(u));
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
  // dsc[j] = d * sc[j] and dm[j] = dmin * m[j] for the 8 sub-blocks.
  static HWY_INLINE void Scales(const Block& b, float* dsc, float* dm) {
    HWY_ALIGN uint8_t sc_m[16];
    Unpack(b, sc_m);
    float dd[2];
    LoadHalf2(&b.d, dd);
    ScaleBytes(sc_m, dd[0], dsc);
    ScaleBytes(sc_m + 8, dd[1], dm);
  }
  // sc[j] in every int16 lane (a shuffle: broadcasting a byte from a
  // general register costs three instructions on AVX-512).
  static HWY_INLINE V16 ScaleOf(const uint8_t* sc_m, int j) {
    return ShuffleTable(sc_m, hn::Set(D16(), static_cast<int16_t>(0x8000 | j)));
  }
  // sum over halves h of d*xscale_h * sum(sc*q * xq) - sum_j dmin*m[j] * sum(x
  // over j). |sc*q| <= 63*31 fits int16; an int32 lane takes at most four
  // vpmaddwd (4 * 2 * 1953 * 32767 < 2^31) before it is converted.
  static_assert(kInt16ActivationGroup == kQK_K / 2, "one activation scale per half block");
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float*, XSums xs, float* out) {
    const DF32 df;
    const D16 d16;
    const hn::CappedTag<float, 8> d8;
    const size_t N = hn::Lanes(d16);
    const auto* b = reinterpret_cast<const Block*>(row);
    const auto x = Vectors<kN>(xs, cols);
    VF32 acc[kN];
    hn::Vec<decltype(d8)> min_acc[kN];
    for (int t = 0; t < kN; ++t) {
      acc[t] = hn::Zero(df);
      min_acc[t] = hn::Zero(d8);
    }
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      HWY_ALIGN uint8_t sc_m[16];
      Unpack(b[k], sc_m);
      float dd[2];
      LoadHalf2(&b[k].d, dd);
      HWY_ALIGN float dm[8];
      ScaleBytes(sc_m + 8, dd[1], dm);
      for (int t = 0; t < kN; ++t) {
        for (size_t i = 0; i < 8; i += hn::Lanes(d8)) {
          min_acc[t] = hn::MulAdd(hn::Load(d8, dm + i), hn::LoadU(d8, x[t].by32 + 8 * k + i), min_acc[t]);
        }
      }
      for (int h = 0; h < 2; ++h) {
        for (size_t i = 0; i < 32; i += N) {
          V32 sum[kN];
          for (int t = 0; t < kN; ++t) sum[t] = hn::Zero(D32());
          for (int g = 2 * h; g < 2 * h + 2; ++g) {
            V16 lo, hi;
            Quants(d16, b[k], g, i, lo, hi);
            const V16 wlo = hn::Mul(lo, ScaleOf(sc_m, 2 * g)), whi = hn::Mul(hi, ScaleOf(sc_m, 2 * g + 1));
            for (int t = 0; t < kN; ++t) {
              const int16_t* xg = x[t].q16 + k * kQK_K + 64 * g + i;
              sum[t] = MulAcc(wlo, xg, sum[t]);
              sum[t] = MulAcc(whi, xg + 32, sum[t]);
            }
          }
          for (int t = 0; t < kN; ++t) {
            acc[t] = hn::MulAdd(hn::ConvertTo(df, sum[t]), hn::Set(df, dd[0] * x[t].scale32[8 * k + 4 * h]), acc[t]);
          }
        }
      }
    }
    for (int t = 0; t < kN; ++t) {
      out[t] = hn::GetLane(hn::SumOfLanes(df, acc[t])) - hn::GetLane(hn::SumOfLanes(d8, min_acc[t]));
    }
  }
};

// Q6_K: w = d*scales[s]*(q - 32), 16 sub-blocks of 16. In half h, the four
// weights l, l+32, l+64, l+96 share ql[l], ql[l+32] and qh[l] (FORMATS.md).
struct Q6_KKernel {
  // Calls f(quarter, l, q) for the vectors of q (0..63, without the -32
  // offset) of one half, in lanes of tag D (int16 for the dot product, int32
  // for decoding). The top bits are moved to bits 4-5 and masked with 0x30
  // straight from qh.
  template <class D, class F>
  static HWY_INLINE void ForEachQuarter(D d, const BlockQ6_K& b, int h, F&& f) {
    const hn::Rebind<uint8_t, D> du8;
    const auto m4 = hn::Set(d, 0xF), m30 = hn::Set(d, 0x30);
    for (size_t l = 0; l < 32; l += hn::Lanes(d)) {
      const auto a = hn::PromoteTo(d, hn::LoadU(du8, b.ql + 64 * h + l));
      const auto c = hn::PromoteTo(d, hn::LoadU(du8, b.ql + 64 * h + 32 + l));
      const auto qh = hn::PromoteTo(d, hn::LoadU(du8, b.qh + 32 * h + l));
      f(0, l, hn::Or(hn::And(a, m4), hn::And(hn::ShiftLeft<4>(qh), m30)));
      f(1, l, hn::Or(hn::And(c, m4), hn::And(hn::ShiftLeft<2>(qh), m30)));
      f(2, l, hn::Or(hn::ShiftRight<4>(a), hn::And(qh, m30)));
      f(3, l, hn::Or(hn::ShiftRight<4>(c), hn::And(hn::ShiftRight<2>(qh), m30)));
    }
  }
  // ds[s] = d * scales[s], converted with vectors.
  static HWY_INLINE void Scales(const BlockQ6_K& b, float* ds) {
    const DF df;
    const size_t N = hn::Lanes(df);
    const VF d = hn::Set(df, LoadHalf(&b.d));
    for (size_t i = 0; i < 16; i += N) hn::StoreU(hn::Mul(hn::ConvertTo(df, LoadI8(b.scales + i)), d), df, ds + i);
  }
  // Byte-shuffle controls that spread the int16 scales of one half (its 8
  // sub-blocks, repeated in every 128-bit block of a vector) over the lanes of
  // quarter j: lane i takes the scale of sub-block 2j + i/16, bytes 2t, 2t+1.
  alignas(64) static constexpr std::array<int16_t, 4 * 32> kSpread = [] {
    std::array<int16_t, 4 * 32> lanes{};
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 32; ++i) {
        const int t = 2 * j + i / 16;
        lanes[static_cast<size_t>(32 * j + i)] = static_cast<int16_t>(2 * t | (2 * t + 1) << 8);
      }
    }
    return lanes;
  }();
  // The int16 scale of every lane of the vector at lane l of quarter j, from
  // the 8 scales of the half at sc16 (a 32-lane vector spans two sub-blocks).
  static HWY_INLINE V16 LaneScales(const int16_t* sc16, int j, size_t l) {
    return ShuffleTable(reinterpret_cast<const uint8_t*>(sc16), hn::Load(D16(), kSpread.data() + 32 * j + l));
  }
  // sum ds*(q-32)*x = sum d*x_scale * sum (sc*q)*xq - 32 * sum_s ds[s] * (sum
  // of x over s). sc*q (|.| <= 128*63) is formed in int16 lanes, so the int32
  // sums run over a whole half (128 weights, one activation scale): four
  // vpmaddwd per int32 lane stay below 2^31 (4 * 2 * 8064 * 32767), and the
  // sums are converted and scaled once per half instead of once per quarter.
  static_assert(kInt16ActivationGroup == kQK_K / 2, "one activation scale per half block");
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float*, XSums xs, float* out) {
    const DF df;
    const DF32 df32;
    const D16 d16;
    const hn::CappedTag<int16_t, 16> d16x16;
    const hn::Rebind<int8_t, decltype(d16x16)> di8x16;
    const size_t N = hn::Lanes(df);
    const auto* b = reinterpret_cast<const BlockQ6_K*>(row);
    const auto x = Vectors<kN>(xs, cols);
    VF32 acc[kN];
    VF offset[kN];
    for (int t = 0; t < kN; ++t) {
      acc[t] = hn::Zero(df32);
      offset[t] = hn::Zero(df);
    }
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      HWY_ALIGN float ds[16];
      Scales(b[k], ds);
      for (int t = 0; t < kN; ++t) {
        for (size_t i = 0; i < 16; i += N) {
          offset[t] = hn::MulAdd(hn::Load(df, ds + i), hn::LoadU(df, x[t].by16 + 16 * k + i), offset[t]);
        }
      }
      HWY_ALIGN int16_t sc16[16];
      for (size_t i = 0; i < 16; i += hn::Lanes(d16x16)) {
        hn::Store(hn::PromoteTo(d16x16, hn::LoadU(di8x16, b[k].scales + i)), d16x16, sc16 + i);
      }
      const float d = LoadHalf(&b[k].d);
      for (int h = 0; h < 2; ++h) {
        V32 sum[kN];
        for (int t = 0; t < kN; ++t) sum[t] = hn::Zero(D32());
        ForEachQuarter(d16, b[k], h, [&](int quarter, size_t l, V16 q) {
          const V16 w = hn::Mul(q, LaneScales(sc16 + 8 * h, quarter, l));
          for (int t = 0; t < kN; ++t) {
            sum[t] = MulAcc(w, x[t].q16 + k * kQK_K + 128 * h + 32 * quarter + l, sum[t]);
          }
          // After the fourth quarter at this l: four vpmaddwd per lane at most.
          if (quarter == 3) {
            for (int t = 0; t < kN; ++t) {
              acc[t] = hn::MulAdd(hn::ConvertTo(df32, sum[t]), hn::Set(df32, d * x[t].scale32[8 * k + 4 * h]), acc[t]);
              sum[t] = hn::Zero(D32());
            }
          }
        });
      }
    }
    for (int t = 0; t < kN; ++t) out[t] = hn::GetLane(hn::SumOfLanes(df32, acc[t])) - 32.0f * Sum(offset[t]);
  }
};

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#include "kernels/gemv_kquant_low-inl.h"  // Q2_K, Q3_K
#include "kernels/gemv_iq4_xs-inl.h"
#include "kernels/gemv_int8-inl.h"  // Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL

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
  ENTRY(Q4_K, Q45_KKernel<BlockQ4_K>) ENTRY(Q5_K, Q45_KKernel<BlockQ5_K>)   \
  ENTRY(Q6_K, Q6_KKernel) ENTRY(Q2_K, Q23_KKernel<BlockQ2_K>) ENTRY(Q3_K, Q23_KKernel<BlockQ3_K>) \
  ENTRY(IQ4_XS, IQ4_XSKernel)

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
