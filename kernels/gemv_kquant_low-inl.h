// Per-target GEMV kernels of Q2_K and Q3_K, the 2- and 3-bit K-quants.
// Included by gemv-inl.h between its kernels and its entry points (once per
// Highway target, inside its toggle guard): they use its helpers (MulAcc,
// LoadHalf, ShuffleTable, the int16 tags).
//
// Both have Q6_K's layout of 16 sub-blocks of 16: in half h the value at
// 128h + 32j + l (j < 4, l < 32) is bits 2j, 2j+1 of qs[32h + l] and lies in
// sub-block 8h + 2j + l/16. The integer
// scale times q is formed in int16 lanes (|.| <= 15 * 3 and 32 * 4) and
// summed with the int16 activations over a whole half (128 weights, one
// activation scale; at most 128 * 128 * 32767 < 2^31 in any int32 lane),
// then scaled once by d * xscale.

#if defined(CK_KERNELS_GEMV_KQUANT_LOW_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_KQUANT_LOW_INL_H_
#undef CK_KERNELS_GEMV_KQUANT_LOW_INL_H_
#else
#define CK_KERNELS_GEMV_KQUANT_LOW_INL_H_
#endif

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

// Q2_K: w = d*(sc & 15)*q - dmin*(sc >> 4), q of 2 bits; the minimum terms
// multiply the sums of x per 16 (XSums::by16). Q3_K: w = d*sc*(q - 4 + 4
// hbit), sc = q3_k_scale (-32..31), hbit bit 4h + j of hmask[l]; signed, so
// no offset term.
template <class Block>
struct Q23_KKernel {
  static constexpr bool kQ3 = std::is_same_v<Block, BlockQ3_K>;
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
  static_assert(kInt16ActivationGroup == kQK_K / 2, "one activation scale per half block");
  // The int16 scales of the 16 sub-blocks.
  static HWY_INLINE void Scales(const Block& b, int16_t* sc16) {
    for (int s = 0; s < 16; ++s) {
      if constexpr (kQ3) {
        sc16[s] = static_cast<int16_t>(q3_k_scale(s, b.scales));
      } else {
        sc16[s] = static_cast<int16_t>(b.scales[s] & 0xF);
      }
    }
  }
  // Q2_K's minimum term: dmin * sum_s m[s] * (sum of x over s).
  static HWY_INLINE float MinTerm(const Block& b, const float* xsum16) {
    float m = 0.0f;
    for (int s = 0; s < 16; ++s) m += static_cast<float>(b.scales[s] >> 4) * xsum16[s];
    return LoadHalf(&b.dmin) * m;
  }
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float*, XSums xs, float* out) {
    const DF32 df;
    const D16 d16;
    const hn::Rebind<uint8_t, D16> du8;
    const size_t N = hn::Lanes(d16);
    const auto* b = reinterpret_cast<const Block*>(row);
    const auto x = Vectors<kN>(xs, cols);
    const auto three = hn::Set(d16, 3);
    VF32 acc[kN];
    float offset[kN];
    for (int t = 0; t < kN; ++t) {
      acc[t] = hn::Zero(df);
      offset[t] = 0.0f;
    }
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      HWY_ALIGN int16_t sc16[16];
      Scales(b[k], sc16);
      if constexpr (!kQ3) {
        for (int t = 0; t < kN; ++t) offset[t] += MinTerm(b[k], x[t].by16 + 16 * k);
      }
      const float d = LoadHalf(&b[k].d);
      for (int h = 0; h < 2; ++h) {
        V32 sum[kN];
        for (int t = 0; t < kN; ++t) sum[t] = hn::Zero(D32());
        for (size_t l = 0; l < 32; l += N) {
          const auto qs = hn::PromoteTo(d16, hn::LoadU(du8, b[k].qs + 32 * h + l));
          [[maybe_unused]] hn::Vec<D16> hm;
          if constexpr (kQ3) hm = hn::PromoteTo(d16, hn::LoadU(du8, b[k].hmask + l));
          for (int j = 0; j < 4; ++j) {
            auto q = hn::And(hn::ShiftRightSame(qs, 2 * j), three);
            if constexpr (kQ3) {
              // q - 4 + 4 hbit = q - 4 * (1 - hbit) = q + 4 * hbit - 4.
              const auto hbit = hn::And(hn::ShiftRightSame(hm, 4 * h + j), hn::Set(d16, 1));
              q = hn::Sub(hn::Or(q, hn::ShiftLeft<2>(hbit)), hn::Set(d16, 4));
            }
            const V16 w = hn::Mul(q, LaneScales(sc16 + 8 * h, j, l));
            for (int t = 0; t < kN; ++t) {
              sum[t] = MulAcc(w, x[t].q16 + k * kQK_K + 128 * h + 32 * j + l, sum[t]);
            }
          }
        }
        for (int t = 0; t < kN; ++t) {
          acc[t] = hn::MulAdd(hn::ConvertTo(df, sum[t]), hn::Set(df, d * x[t].scale32[8 * k + 4 * h]), acc[t]);
        }
      }
    }
    for (int t = 0; t < kN; ++t) out[t] = hn::GetLane(hn::SumOfLanes(df, acc[t])) - offset[t];
  }
};

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMV_KQUANT_LOW_INL_H_
