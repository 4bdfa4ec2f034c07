// Per-target decode GEMV of the row-grouped dtypes (row_groups.h: Q8_0_R16,
// Q4_0_R16, Q4_1_R16, Q5_0_R16, Q5_1_R16, their plain dtype's rows
// interleaved in groups of 16), re-included by gemv_int8.cc once per
// Highway target after gemv_int8-inl.h, whose machinery it uses; and by
// gemv_kquant.cc for its vectors of rows (Q4_K_R16:
// gemv_int8_kquant_rows16-inl.h) and the portable target's kernel.
//
// A 32-bit lane is a row: one byte dot product of a quad vector (four
// weights of each of its rows) with four activation bytes broadcast adds
// four products to every row, so a block's eight quads leave each row's
// integer sum in its own lane, and the float work (the scales' conversion,
// d * s, the multiply-adds) is one vector op per 16 (or 8, 4) rows and
// block. The row kernels reduce four blocks' lanes per row and convert
// their scales one row at a time; on SmolLM2's rows of 18 blocks that was
// most of their time (docs/kernels.md, "Session 41"). A word vector of
// Q4_0 / Q4_1 holds two quads, its low and its high nibbles; Q5_0's and
// Q5_1's add their fifth bits from the qh word.
//
// The activations are gemv_int8-inl.h's: int8 per 32 values with the
// spiky blocks' second pass, and per block b of row r and vector t
//   y += d[r, b] (s[b] sum(u x8) + s'[b] sum(u r8)) + c[r, b] sum8[b]
// with sum8 the sum of both rounded forms and c the offset of u: -8 d
// (Q4_0), -16 d (Q5_0), m (Q4_1, Q5_1), and for Q8_0 -128 d where VNNI
// multiplies u = q + 128 (the quads flipped by one xor), none where the
// sign trick keeps q.

#if defined(CK_KERNELS_GEMV_INT8_ROWS16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_INT8_ROWS16_INL_H_
#undef CK_KERNELS_GEMV_INT8_ROWS16_INL_H_
#else
#define CK_KERNELS_GEMV_INT8_ROWS16_INL_H_
#endif

#include "kernels/keep_in_register-inl.h"
#include "kernels/row_groups.h"

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

using ck::HWY_NAMESPACE::KeepInRegister;

// The grouped dtype of the plain blocks Block.
template <class Block>
constexpr DType kGroupedOf = std::is_same_v<Block, BlockQ8_0>    ? DType::Q8_0_R16
                             : std::is_same_v<Block, BlockQ4_0>  ? DType::Q4_0_R16
                             : std::is_same_v<Block, BlockQ4_1>  ? DType::Q4_1_R16
                             : std::is_same_v<Block, BlockQ5_0L> ? DType::Q5_0_R16
                             : std::is_same_v<Block, BlockQ5_1L> ? DType::Q5_1_R16
                             : std::is_same_v<Block, BlockQ6_K>  ? DType::Q6_K_R16
                                                                 : DType::Q4_K_R16;

#if CK_HWY_PORTABLE_TARGET

// The portable target: each row gathered into plain blocks, then the row
// kernel.
template <class Block>
struct RowGroupKernel {
  static constexpr int kRowGroup = ck::kRowGroup;
  static void Rows(const uint8_t* W, size_t, int64_t r0, int64_t r1, int64_t cols, const float* x, const XSums& xs,
                   int64_t n, float* y, int64_t y_stride) {
    for (int64_t r = r0; r < r1; ++r) {
      const uint8_t* row = gathered_row(kGroupedOf<Block>, W, cols, r);
      for (int64_t t = 0; t < n; ++t) DotInto<Int8Kernel<Block>, 1>(row, cols, x, xs, t, y + r, y_stride);
    }
  }
};

#else

// Rows per vector: 16 in a 512-bit vector with VNNI; 8 in a 256-bit one
// elsewhere (AVX3 without VNNI too: the sign trick has no 512-bit vpsignb),
// 4 in a 128-bit one.
#if HWY_TARGET == HWY_AVX3_DL
using DR = hn::Full512<int32_t>;
#else
using DR = DQ;
#endif
using DRF = hn::Rebind<float, DR>;
using DRB = hn::Repartition<int8_t, DR>;
using DRU = hn::Repartition<uint8_t, DR>;
using VR = hn::Vec<DR>;
using VRF = hn::Vec<DRF>;
using VRB = hn::Vec<DRB>;
using VRU = hn::Vec<DRU>;
using DRW = hn::Repartition<int16_t, DR>;
using VRW = hn::Vec<DRW>;
using DRL = hn::Repartition<uint32_t, DR>;
constexpr int kRowLanes = static_cast<int>(hn::MaxLanes(DR()));
constexpr int kGroupVectors = kRowGroup / kRowLanes;

#if HWY_TARGET == HWY_AVX3_DL
// acc + the products of the unsigned quad weights u with the four
// activation bytes at x4, in every lane. As DotU8: asm, for want of an
// inlinable vpdpbusd on this target; the four bytes broadcast from memory
// by the instruction itself.
HWY_INLINE VR QuadDotU(VR acc, VRU u, const int8_t* x4) {
  auto raw = acc.raw;
  asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(raw) : "v"(u.raw), "m"(*reinterpret_cast<const int32_t*>(x4)));
  return VR{raw};
}
#else
// The four activation bytes at x4 in every lane.
HWY_INLINE VRB BroadcastQuad(const int8_t* x4) {
  int32_t quad;
  std::memcpy(&quad, x4, 4);
  return hn::BitCast(DRB(), hn::Set(DR(), quad));
}

// The int16 pair sums of the unsigned quad weights u (u <= 31) times the
// four activation bytes at x4.
HWY_INLINE VRW QuadPairs(VRU u, const int8_t* x4) {
#if HWY_TARGET <= HWY_AVX2
  return VRW{_mm256_maddubs_epi16(u.raw, BroadcastQuad(x4).raw)};
#else
  return VRW{_mm_maddubs_epi16(u.raw, BroadcastQuad(x4).raw)};
#endif
}

// The int32 sums of adjacent int16 pairs.
HWY_INLINE VR PairsToQuads(VRW pairs) {
#if HWY_TARGET <= HWY_AVX2
  return VR{_mm256_madd_epi16(pairs.raw, _mm256_set1_epi16(1))};
#else
  return VR{_mm_madd_epi16(pairs.raw, _mm_set1_epi16(1))};
#endif
}
#endif

// The same for signed quad weights q (Q8_0): VNNI multiplies q + 128 (one
// xor; the caller's offset takes 128 d sum8 off), the sign trick |q| by x
// with q's sign.
HWY_INLINE VR QuadDotI(VR acc, VRB q, const int8_t* x4) {
#if HWY_TARGET == HWY_AVX3_DL
  return QuadDotU(acc, hn::BitCast(DRU(), hn::Xor(q, hn::Set(DRB(), -128))), x4);
#else
  const VRB x = BroadcastQuad(x4);
#if HWY_TARGET <= HWY_AVX2
  return AddQuads(acc, VB{hn::Abs(q).raw}, VBS{_mm256_sign_epi8(x.raw, q.raw)});
#else
  return AddQuads(acc, VB{hn::Abs(q).raw}, VBS{_mm_sign_epi8(x.raw, q.raw)});
#endif
#endif
}

// Y[t * y_stride + r] for the groups of rows [r0, r1) of K and n vectors:
// kMaxVectorsPerDot at a time (K::Groups<kN>), then two, then one.
template <class K>
HWY_INLINE void GroupsByVectors(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols,
                                const XSums& xs, int64_t n, float* y, int64_t y_stride) {
  int64_t t = 0;
  for (; t + kMaxVectorsPerDot <= n; t += kMaxVectorsPerDot) {
    K::template Groups<kMaxVectorsPerDot>(W, row_bytes, r0, r1, cols, xs, t, y, y_stride);
  }
  if (t + 2 <= n) {
    K::template Groups<2>(W, row_bytes, r0, r1, cols, xs, t, y, y_stride);
    t += 2;
  }
  if (t < n) K::template Groups<1>(W, row_bytes, r0, r1, cols, xs, t, y, y_stride);
}

// The kRowLanes halves at p (a header field of a vector's rows) as floats.
HWY_INLINE VRF GroupHalves(const uint8_t* p) {
  const hn::Rebind<hwy::float16_t, DRF> dh;
  return hn::PromoteTo(DRF(), hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
}

template <class Block>
struct RowGroupKernel {
  using T = Int8BlockTraits<Block>;
  static constexpr RowGroupLayout L = row_group_layout(kGroupedOf<Block>);
  static constexpr int kRowGroup = ck::kRowGroup;
  // c of each block as a multiple of its d (-8, or VNNI's -128), or 1 times
  // its m (Q4_1); 0 where Q8_0 keeps its sign.
  static constexpr float kOffset = T::kHasMin ? 1.0f : Int8Kernel<Block>::kOffset;
  // The VNNI kernel's stream is its own (gemv_rows.h); the sign-trick
  // kernels, twice the vector ops a quad, read faster with the row
  // kernels' (AVX2 on Zen 4: SmolLM2 Q8_0 tg128 127-154 t/s against
  // 95-113 with the VNNI kernel's; docs/kernels.md, "Session 41").
  static inline const StreamDistances& kStream =
      HWY_TARGET == HWY_AVX3_DL ? kRowGroupStreamDistances : kStreamDistances;

  // Header field f (0: d, 1: m) of vector v's rows in block column p, as
  // floats.
  static HWY_INLINE VRF Field(const uint8_t* p, int f, int v) { return GroupHalves(p + L.field_at(f, v * kRowLanes)); }

  // Words of int16 pair sums added before they are widened: a word's two
  // quads add at most 2 x 2 x 15 x 127 = 7620 to a pair (Q4), 15748 with
  // the fifth bit (u <= 31), so four words fit in int16, or two.
  static constexpr int kWidenWords = L.has_high_bits() ? 2 : 4;

  // The integer sums of vector v's rows in block column p with the 32
  // activation bytes at x[t], t < kN. The nibbles' word vectors hold
  // weights 4j .. 4j + 3 in their low nibbles and 16 + 4j .. in their high
  // ones (the 16-bit shift's carries from the next byte masked off); Q5's
  // fifth bits are bit j (low) and 4 + j (high) of each byte of the row's
  // qh word, one 32-bit shift each from bit 4 (the bits it moves across
  // bytes are masked off). The pair-sum targets add int16 pair sums over
  // kWidenWords words before widening them, one pmaddwd per block (two
  // for Q5) where a quad took one each.
  template <int kN>
  static HWY_INLINE void BlockSums(const uint8_t* p, int v, const int8_t* const* x, VR* s) {
    for (int t = 0; t < kN; ++t) s[t] = hn::Zero(DR());
#if HWY_TARGET != HWY_AVX3_DL
    VRW pairs[kN];
    for (int t = 0; t < kN; ++t) pairs[t] = hn::Zero(DRW());
#endif
    [[maybe_unused]] const auto qh =
        L.has_high_bits() ? hn::LoadU(DRL(), reinterpret_cast<const uint32_t*>(p + L.word_at(0, v * kRowLanes)))
                          : hn::Zero(DRL());
    for (int j = 0; j < L.quant_words(); ++j) {
      const uint8_t* word = p + L.quant_at(j, v * kRowLanes);
      if constexpr (T::kSigned) {
        const VRB q = hn::LoadU(DRB(), reinterpret_cast<const int8_t*>(word));
        for (int t = 0; t < kN; ++t) s[t] = QuadDotI(s[t], q, x[t] + 4 * j);
      } else {
        const VRU bytes = hn::LoadU(DRU(), word);
        VRU low = hn::And(bytes, hn::Set(DRU(), 0xF));
        VRU high = hn::And(hn::BitCast(DRU(), hn::ShiftRight<4>(hn::BitCast(DRW(), bytes))), hn::Set(DRU(), 0xF));
        if constexpr (L.has_high_bits()) {
          const VRU bit4 = hn::Set(DRU(), 0x10);
          low = hn::Or(low, hn::And(hn::BitCast(DRU(), hn::ShiftLeftSame(qh, 4 - j)), bit4));
          high = hn::Or(high, hn::And(hn::BitCast(DRU(), hn::ShiftRightSame(qh, j)), bit4));
        }
        for (int t = 0; t < kN; ++t) {
#if HWY_TARGET == HWY_AVX3_DL
          s[t] = QuadDotU(QuadDotU(s[t], low, x[t] + 4 * j), high, x[t] + 16 + 4 * j);
#else
          pairs[t] = hn::Add(pairs[t], hn::Add(QuadPairs(low, x[t] + 4 * j), QuadPairs(high, x[t] + 16 + 4 * j)));
          KeepInRegister(pairs[t]);
          if ((j + 1) % kWidenWords == 0) {
            s[t] = hn::Add(s[t], PairsToQuads(pairs[t]));
            pairs[t] = hn::Zero(DRW());
          }
#endif
        }
      }
    }
  }

  // out[t][v] = the 16 rows of the group at g times vector t (kN vectors).
  template <int kN>
  static HWY_INLINE void Group(const uint8_t* g, int64_t nb, const std::array<XSums, kN>& x,
                               VRF (&out)[kN][kGroupVectors]) {
    VRF acc[kN][kGroupVectors], off[kN][kGroupVectors];
    for (int t = 0; t < kN; ++t) {
      for (int v = 0; v < kGroupVectors; ++v) acc[t][v] = off[t][v] = hn::Zero(DRF());
    }
    for (int64_t k = 0; k < nb; ++k) {
      const uint8_t* p = g + k * L.column_bytes();
      StreamStep<L.column_bytes()>(p, kStream);
      const int8_t* xq[kN];
      for (int t = 0; t < kN; ++t) xq[t] = x[t].q8 + k * kQK;
      for (int v = 0; v < kGroupVectors; ++v) {
        VR s[kN];
        BlockSums<kN>(p, v, xq, s);
        const VRF d = Field(p, 0, v);
        for (int t = 0; t < kN; ++t) {
          acc[t][v] = hn::MulAdd(hn::ConvertTo(DRF(), s[t]), hn::Mul(d, hn::Set(DRF(), x[t].scale8[k])), acc[t][v]);
        }
        if constexpr (kOffset != 0.0f) {
          const VRF c = T::kHasMin ? Field(p, 1, v) : d;
          for (int t = 0; t < kN; ++t) off[t][v] = hn::MulAdd(c, hn::Set(DRF(), x[t].sum8[k]), off[t][v]);
        }
      }
    }
    // The spiky blocks' second terms (rscale8 is zero for the other blocks
    // of a spiky group), in a loop of their own as in the row kernels.
    for (int t = 0; t < kN; ++t) {
      for (int32_t i = 0; i < *x[t].n_spiky_groups; ++i) {
        const int64_t k0 = int64_t{x[t].spiky_groups[i]} * kX8Group;
        for (int64_t k = k0; k < std::min(k0 + kX8Group, nb); ++k) {
          const float rs = x[t].rscale8[k];
          if (rs == 0.0f) continue;
          const uint8_t* p = g + k * L.column_bytes();
          const int8_t* r = x[t].r8 + k * kQK;
          for (int v = 0; v < kGroupVectors; ++v) {
            VR s;
            BlockSums<1>(p, v, &r, &s);
            acc[t][v] = hn::MulAdd(hn::ConvertTo(DRF(), s), hn::Mul(Field(p, 0, v), hn::Set(DRF(), rs)), acc[t][v]);
          }
        }
      }
      for (int v = 0; v < kGroupVectors; ++v) out[t][v] = hn::MulAdd(off[t][v], hn::Set(DRF(), kOffset), acc[t][v]);
    }
  }

  // Y[t * y_stride + r] for the groups of rows [r0, r1) (multiples of 16)
  // and kN vectors from vector t0.
  template <int kN>
  static HWY_INLINE void Groups(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols,
                                const XSums& xs, int64_t t0, float* y, int64_t y_stride) {
    std::array<XSums, kN> x;
    for (int t = 0; t < kN; ++t) x[t] = VectorOf(xs, cols, t0 + t);
    const int64_t nb = cols / kQK;
    for (int64_t r = r0; r < r1; r += kRowGroup) {
      VRF out[kN][kGroupVectors];
      Group<kN>(W + static_cast<size_t>(r) * row_bytes, nb, x, out);
      for (int t = 0; t < kN; ++t) {
        for (int v = 0; v < kGroupVectors; ++v)
          hn::StoreU(out[t][v], DRF(), y + (t0 + t) * y_stride + r + v * kRowLanes);
      }
    }
  }

  static void Rows(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols, const float*,
                   const XSums& xs, int64_t n, float* y, int64_t y_stride) {
    GroupsByVectors<RowGroupKernel>(W, row_bytes, r0, r1, cols, xs, n, y, y_stride);
  }
};

#endif  // CK_HWY_PORTABLE_TARGET

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMV_INT8_ROWS16_INL_H_
