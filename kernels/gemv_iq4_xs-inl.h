// Per-target GEMV kernel of IQ4_XS. Included by gemv-inl.h between its
// kernels and its entry points (once per Highway target, inside its toggle
// guard): it uses its helpers (MulAcc, LoadHalf, ShuffleTable).
//
// A super-block is eight IQ4_NL-like sub-blocks of 32 (value j the low
// nibble of qs[16s + j], value j + 16 its high nibble) with w = d * (ls - 32)
// * kIQ4Values[nibble]. The integer scale times the codebook value (|.| <=
// 32 * 127) is formed in int16 lanes and summed with the int16 activations
// over a half block (four sub-blocks, one activation scale), then scaled
// once by d * xscale. An int32 lane takes the pair products of two vpmaddwd
// (low and high nibbles) per sub-block, 16 products of at most 4064 * 32767
// in all, < 2^31, before it is converted.

#if defined(CK_KERNELS_GEMV_IQ4_XS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_IQ4_XS_INL_H_
#undef CK_KERNELS_GEMV_IQ4_XS_INL_H_
#else
#define CK_KERNELS_GEMV_IQ4_XS_INL_H_
#endif

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

struct IQ4_XSKernel {
  using DH = hn::CappedTag<int16_t, 16>;
  // The codebook value of each nibble (0..15) as int16: the byte looked up
  // in the low byte (0x80 zeroes the high one), then sign-extended.
  static HWY_INLINE hn::Vec<DH> Codebook(hn::Vec<DH> nibbles) {
    const DH dh;
    const auto* table = reinterpret_cast<const uint8_t*>(kIQ4Values);
    const auto bytes = ShuffleTable(table, hn::Or(nibbles, hn::Set(dh, static_cast<int16_t>(-0x8000))));
    return hn::ShiftRight<8>(hn::ShiftLeft<8>(bytes));
  }
  static_assert(kInt16ActivationGroup == kQK_K / 2, "one activation scale per half block");
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float*, XSums xs, float* out) {
    const DH dh;
    const hn::RepartitionToWide<DH> dw;
    const hn::Rebind<float, decltype(dw)> df;
    const hn::Rebind<uint8_t, DH> du8;
    const size_t N = hn::Lanes(dh);
    const auto* b = reinterpret_cast<const BlockIQ4_XS*>(row);
    const auto mask = hn::Set(dh, 0xF);
    const auto x = Vectors<kN>(xs, cols);
    hn::Vec<decltype(df)> acc[kN];
    for (int t = 0; t < kN; ++t) acc[t] = hn::Zero(df);
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      int16_t sc[8];
      for (int s = 0; s < 8; ++s) sc[s] = static_cast<int16_t>(iq4_xs_scale(s, b[k]));
      const float d = LoadHalf(&b[k].d);
      for (int h = 0; h < 2; ++h) {
        for (size_t i = 0; i < kQK / 2; i += N) {
          hn::Vec<decltype(dw)> sum[kN];
          for (int t = 0; t < kN; ++t) sum[t] = hn::Zero(dw);
          for (int s = 4 * h; s < 4 * h + 4; ++s) {
            const auto q = hn::PromoteTo(dh, hn::LoadU(du8, b[k].qs + 16 * s + i));
            const auto scale = hn::Set(dh, sc[s]);
            const auto lo = hn::Mul(Codebook(hn::And(q, mask)), scale);
            const auto hi = hn::Mul(Codebook(hn::ShiftRight<4>(q)), scale);
            for (int t = 0; t < kN; ++t) {
              const int16_t* xq = x[t].q16 + k * kQK_K;
              sum[t] = MulAcc(lo, xq + 32 * s + i, sum[t]);
              sum[t] = MulAcc(hi, xq + 32 * s + 16 + i, sum[t]);
            }
          }
          for (int t = 0; t < kN; ++t) {
            acc[t] = hn::MulAdd(hn::ConvertTo(df, sum[t]), hn::Set(df, d * x[t].scale32[8 * k + 4 * h]), acc[t]);
          }
        }
      }
    }
    for (int t = 0; t < kN; ++t) out[t] = hn::GetLane(hn::SumOfLanes(df, acc[t]));
  }
};

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMV_IQ4_XS_INL_H_
