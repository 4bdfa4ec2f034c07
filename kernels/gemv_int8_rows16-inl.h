// Per-target decode GEMV of Q8_0_R16, Q8_0 with its rows interleaved in
// groups of 16 (row_groups.h), re-included by gemv_int8.cc once per Highway
// target after gemv_int8-inl.h, whose machinery it uses.
//
// A 32-bit lane is a row: one byte dot product of a quad vector (four
// weights of each of its rows) with four activation bytes broadcast adds
// four products to every row, so a block's eight quads leave each row's
// integer sum in its own lane, and the float work (the scales' conversion,
// d * s, the multiply-add) is one vector op per 16 (or 8, 4) rows and block.
// The row kernel of Q8_0 reduces four blocks' lanes per row and converts
// their scales one row at a time; on SmolLM2's rows of 18 blocks that was
// most of its time (docs/kernels.md, "Session 41").
//
// The activations are gemv_int8-inl.h's: int8 per 32 values with the
// spiky blocks' second pass, and per block b of row r and vector t
//   y += d[r, b] * (s[b] * sum(q * x8) + s'[b] * sum(q * r8))
// where VNNI multiplies q + 128 (the quads flipped by one xor) and takes
// 128 d[r, b] * sum8[b] off, sum8 being the sum of both rounded forms.

#if defined(CK_KERNELS_GEMV_INT8_ROWS16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_INT8_ROWS16_INL_H_
#undef CK_KERNELS_GEMV_INT8_ROWS16_INL_H_
#else
#define CK_KERNELS_GEMV_INT8_ROWS16_INL_H_
#endif

#include "kernels/row_groups.h"

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

#if CK_HWY_PORTABLE_TARGET

// The portable target: each row gathered into plain Q8_0 blocks, then the
// Q8_0 row kernel.
struct RowGroupKernel {
  static constexpr int kRowGroup = ck::kRowGroup;
  static void Rows(const uint8_t* W, size_t, int64_t r0, int64_t r1, int64_t cols, const float* x,
                   const XSums& xs, int64_t n, float* y, int64_t y_stride) {
    for (int64_t r = r0; r < r1; ++r) {
      const uint8_t* row = gathered_row(W, cols, r);
      for (int64_t t = 0; t < n; ++t) DotInto<Int8Kernel<BlockQ8_0>, 1>(row, cols, x, xs, t, y + r, y_stride);
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
using VR = hn::Vec<DR>;
using VRF = hn::Vec<DRF>;
using VRB = hn::Vec<DRB>;
constexpr int kRowLanes = static_cast<int>(hn::MaxLanes(DR()));
constexpr int kGroupVectors = kRowGroup / kRowLanes;

// The quad vector's weights as the dot product takes them: q + 128 (VNNI),
// or |q| with q kept for the sign of x.
struct QuadWeights {
  VRB w;
#if HWY_TARGET != HWY_AVX3_DL
  VRB abs;
#endif
};
HWY_INLINE QuadWeights LoadQuad(const uint8_t* p) {
  const VRB q = hn::LoadU(DRB(), reinterpret_cast<const int8_t*>(p));
#if HWY_TARGET == HWY_AVX3_DL
  return {hn::Xor(q, hn::Set(DRB(), -128))};
#else
  return {q, hn::Abs(q)};
#endif
}

// acc + the products of the quad's weights with the four activation bytes
// at x4, in every lane.
HWY_INLINE VR QuadDot(VR acc, const QuadWeights& q, const int8_t* x4) {
#if HWY_TARGET == HWY_AVX3_DL
  // As DotU8: asm, for want of an inlinable vpdpbusd on this target; the
  // four bytes broadcast from memory by the instruction itself.
  auto raw = acc.raw;
  asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(raw) : "v"(q.w.raw), "m"(*reinterpret_cast<const int32_t*>(x4)));
  return VR{raw};
#else
  int32_t quad;
  std::memcpy(&quad, x4, 4);
  const VRB x = hn::BitCast(DRB(), hn::Set(DR(), quad));
#if HWY_TARGET <= HWY_AVX2
  return AddQuads(acc, VB{q.abs.raw}, VBS{_mm256_sign_epi8(x.raw, q.w.raw)});
#else
  return AddQuads(acc, VB{q.abs.raw}, VBS{_mm_sign_epi8(x.raw, q.w.raw)});
#endif
#endif
}

struct RowGroupKernel {
  static constexpr int kRowGroup = ck::kRowGroup;
  // The VNNI kernel's stream is its own (gemv_rows.h); the sign-trick
  // kernels, twice the vector ops a quad, read faster with the row
  // kernels' (AVX2 on Zen 4: SmolLM2 Q8_0 tg128 127-154 t/s against
  // 95-113 with the VNNI kernel's; docs/kernels.md, "Session 41").
  static inline const StreamDistances& kStream =
      HWY_TARGET == HWY_AVX3_DL ? kRowGroupStreamDistances : kStreamDistances;

  // The scales of vector v's rows in block column p, as floats.
  static HWY_INLINE VRF Scales(const uint8_t* p, int v) {
    const hn::Rebind<hwy::float16_t, DRF> dh;
    return hn::PromoteTo(DRF(), hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p) + v * kRowLanes));
  }

  // The integer sums of vector v's rows in block column p with the 32
  // activation bytes at x[t], t < kN.
  template <int kN>
  static HWY_INLINE void BlockSums(const uint8_t* p, int v, const int8_t* const* x, VR* s) {
    for (int t = 0; t < kN; ++t) s[t] = hn::Zero(DR());
    for (int j = 0; j < 8; ++j) {
      const QuadWeights q = LoadQuad(p + kRowGroupScales + kRowGroupQuad * j + 4 * kRowLanes * v);
      for (int t = 0; t < kN; ++t) s[t] = QuadDot(s[t], q, x[t] + 4 * j);
    }
  }

  // out[t][v] = the 16 rows of the group at g times vector t (kN vectors).
  template <int kN>
  static HWY_INLINE void Group(const uint8_t* g, int64_t nb, const std::array<XSums, kN>& x, VRF (&out)[kN][kGroupVectors]) {
    VRF acc[kN][kGroupVectors], off[kN][kGroupVectors];
    for (int t = 0; t < kN; ++t) {
      for (int v = 0; v < kGroupVectors; ++v) acc[t][v] = off[t][v] = hn::Zero(DRF());
    }
    for (int64_t k = 0; k < nb; ++k) {
      const uint8_t* p = g + k * kRowGroupBlock;
      StreamStep<kRowGroupBlock>(p, kStream);
      const int8_t* xq[kN];
      for (int t = 0; t < kN; ++t) xq[t] = x[t].q8 + k * kQK;
      for (int v = 0; v < kGroupVectors; ++v) {
        VR s[kN];
        BlockSums<kN>(p, v, xq, s);
        const VRF d = Scales(p, v);
        for (int t = 0; t < kN; ++t) {
          acc[t][v] = hn::MulAdd(hn::ConvertTo(DRF(), s[t]), hn::Mul(d, hn::Set(DRF(), x[t].scale8[k])), acc[t][v]);
          if constexpr (kSignedOffset != 0.0f) off[t][v] = hn::MulAdd(d, hn::Set(DRF(), x[t].sum8[k]), off[t][v]);
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
          const uint8_t* p = g + k * kRowGroupBlock;
          const int8_t* r = x[t].r8 + k * kQK;
          for (int v = 0; v < kGroupVectors; ++v) {
            VR s;
            BlockSums<1>(p, v, &r, &s);
            acc[t][v] = hn::MulAdd(hn::ConvertTo(DRF(), s), hn::Mul(Scales(p, v), hn::Set(DRF(), rs)), acc[t][v]);
          }
        }
      }
      for (int v = 0; v < kGroupVectors; ++v) out[t][v] = hn::MulAdd(off[t][v], hn::Set(DRF(), kSignedOffset), acc[t][v]);
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
        for (int v = 0; v < kGroupVectors; ++v) hn::StoreU(out[t][v], DRF(), y + (t0 + t) * y_stride + r + v * kRowLanes);
      }
    }
  }

  static void Rows(const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols, const float*,
                   const XSums& xs, int64_t n, float* y, int64_t y_stride) {
    int64_t t = 0;
    for (; t + kMaxVectorsPerDot <= n; t += kMaxVectorsPerDot) {
      Groups<kMaxVectorsPerDot>(W, row_bytes, r0, r1, cols, xs, t, y, y_stride);
    }
    if (t + 2 <= n) {
      Groups<2>(W, row_bytes, r0, r1, cols, xs, t, y, y_stride);
      t += 2;
    }
    if (t < n) Groups<1>(W, row_bytes, r0, r1, cols, xs, t, y, y_stride);
  }
};

#endif  // CK_HWY_PORTABLE_TARGET

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMV_INT8_ROWS16_INL_H_
