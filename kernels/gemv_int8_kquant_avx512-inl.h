// The decode GEMV of Q4_K, Q5_K and Q6_K on the AVX-512 targets (AVX3,
// AVX3_DL): two units of 32 weights per 512-bit vector. Included by
// gemv_kquant.cc after gemv_int8_kquant-inl.h, whose 256-bit kernels the
// other targets (and the other K-quants) keep; Q45_KKernel and Q6_KKernel
// name the kernel of each target.
//
// Why: decode of the K-quants stopped short of the read bandwidth on the
// work per byte, not on when the lines arrive (docs/kernels.md, session
// 21). With 256-bit units a Q4_K super-block took about 100 instructions,
// half of them the eight units' loads, shifts, masks, pair sums and scale
// shuffles. Here a unit pair shares one load (Q4_K's low and high nibbles of
// the same qs are units 2g and 2g + 1, Q6_K's quarters 0 and 1 are the low
// nibbles of 64 adjacent ql bytes, and their activations are adjacent too),
// one shift, one mask, one pmaddubsw and one scaling (vpdpwssd on AVX3_DL:
// pmaddwd and the add in one); the scales of a pair come from one vpermw of
// the super-block's 16-bit scales. Q4_K's loop is about 70 instructions.
// In cache (ck-kernel-bench hot, 1024 x 2048, Xeon, session 22): Q4_K
// 71.5 -> 63.1 us, Q5_K 80.5 -> 75.3, Q6_K 110 -> 80.5; decode of the
// 1.1B-shaped files +7 % (Q4_K_M) and +14 % (Q6_K) (docs/kernels.md,
// session 22).
//
// Same arithmetic as the 256-bit kernels: activations rounded per
// super-block (XSums' q8k), integer sub-block scales applied to the byte
// pair sums, int32 sums meeting d times the activation scale once per
// super-block, offsets in float from the sums of x per 32 (Q4_K, Q5_K) or 16
// (Q6_K). Every vector of a batch sees the same operations in the same
// order as alone.

#if defined(CK_KERNELS_GEMV_INT8_KQUANT_AVX512_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_INT8_KQUANT_AVX512_INL_H_
#undef CK_KERNELS_GEMV_INT8_KQUANT_AVX512_INL_H_
#else
#define CK_KERNELS_GEMV_INT8_KQUANT_AVX512_INL_H_
#endif

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

#if !CK_HWY_PORTABLE_TARGET && HWY_TARGET <= HWY_AVX3

// acc + the int32 sums of adjacent int16 products pairs * scale.
HWY_INLINE __m512i AddScaledPairs(__m512i acc, __m512i pairs, __m512i scale) {
#if HWY_TARGET == HWY_AVX3_DL
  // Highway 1.0.3's AVX3_DL attribute lacks avx512vnni (as for vpdpbusd in
  // gemv_int8-inl.h): asm.
  asm("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(pairs), "v"(scale));
  return acc;
#else
  return _mm512_add_epi32(acc, _mm512_madd_epi16(pairs, scale));
#endif
}

// The int16 lanes of a 16-lane vector selected by constant indices: the
// scale of each 32-byte (Q4_K, Q5_K) or 16-byte (Q6_K) piece of a pair.
struct ScaleSelect {
  __m512i index;
  // Lane of the scale for int16 lane i: first + i / lanes_per_scale.
  static ScaleSelect Of(int first, int lanes_per_scale) {
    alignas(64) int16_t idx[32];
    for (int i = 0; i < 32; ++i) idx[i] = static_cast<int16_t>(first + i / lanes_per_scale);
    return {_mm512_load_si512(idx)};
  }
  HWY_INLINE __m512i From(__m256i scales16) const {
    return _mm512_permutexvar_epi16(index, _mm512_castsi256_si512(scales16));
  }
};

// The int32 sums of a super-block's four unit pairs (bytes u, int16 scales
// of their pieces) with its activation bytes xq, pair g with xq + 64 g. Two
// chains, so that the four scalings do not wait on each other.
HWY_INLINE __m512i SuperBlockSums(const __m512i* u, const __m512i* scale, const int8_t* xq) {
  __m512i s[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
  for (int g = 0; g < 4; ++g) {
    const __m512i pairs = _mm512_maddubs_epi16(u[g], _mm512_loadu_si512(xq + 64 * g));
    s[g % 2] = AddScaledPairs(s[g % 2], pairs, scale[g]);
  }
  return _mm512_add_epi32(s[0], s[1]);
}

// acc[t] += d * s_t * (the sums with q8k), and d * s'_t * (the sums with
// r8k) where super-block k of vector t is spiky.
template <int kN>
HWY_INLINE void AccumulateUnitPairs(const __m512i* u, const __m512i* scale, int64_t k, float d,
                               const std::array<XSums, kN>& x, __m512* acc) {
  for (int t = 0; t < kN; ++t) {
    const __m512i sums = SuperBlockSums(u, scale, x[t].q8k + k * kQK_K);
    acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), _mm512_set1_ps(d * x[t].scale8k[k]), acc[t]);
    if (x[t].rscale8k[k] != 0.0f) {
      const __m512i rsums = SuperBlockSums(u, scale, x[t].r8k + k * kQK_K);
      acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(rsums), _mm512_set1_ps(d * x[t].rscale8k[k]), acc[t]);
    }
  }
}

// Q4_K and Q5_K: pair g holds units 2g (low nibbles of qs[32g ..), low
// 256 bits) and 2g + 1 (their high nibbles, high 256 bits); Q5_K's fifth
// bit of unit j is bit j of qh[0 .. 32).
template <class Block>
struct Q45_KUnitPairKernel {
  static constexpr bool kHighBit = std::is_same_v<Block, BlockQ5_K>;

  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float*, const XSums& xs, float* out) {
    const auto* blocks = reinterpret_cast<const Block*>(row);
    const auto x = Vectors<kN>(xs, cols);
    // Shift 0 for the low half's words, 4 for the high half's; then the
    // mask drops the bits that the 16-bit shift brought across bytes.
    const __m512i nibble_shift = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(4), 1);
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    const ScaleSelect scale_of[4] = {ScaleSelect::Of(0, 16), ScaleSelect::Of(2, 16), ScaleSelect::Of(4, 16),
                                     ScaleSelect::Of(6, 16)};
    __m512 acc[kN];
    __m256 offset[kN];
    for (int t = 0; t < kN; ++t) {
      acc[t] = _mm512_setzero_ps();
      offset[t] = _mm256_setzero_ps();
    }
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      StreamStep<sizeof(Block)>(blocks + k);
      const Block& b = blocks[k];
      const __m128i sc_m = UnpackQ45_KScales(b.scales).raw;  // sc 0..7, m 0..7
      uint32_t dm;
      std::memcpy(&dm, &b.d, 4);
      const __m128 d_dmin = _mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(dm)));
      // offset -= dmin m_j (sum of x over unit j).
      const __m256 m = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(sc_m, 8))),
                                     _mm256_broadcastss_ps(_mm_movehdup_ps(d_dmin)));
      for (int t = 0; t < kN; ++t) offset[t] = _mm256_fnmadd_ps(m, _mm256_loadu_ps(x[t].sum32_8k + 8 * k), offset[t]);
      const __m256i sc16 = _mm256_cvtepu8_epi16(sc_m);
      __m512i u[4], scale[4];
      for (int g = 0; g < 4; ++g) {
        const __m512i qs = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 32 * g)));
        u[g] = _mm512_and_si512(_mm512_srlv_epi16(qs, nibble_shift), low4);
        scale[g] = scale_of[g].From(sc16);
      }
      if constexpr (kHighBit) {
        const __m512i qh = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qh)));
        for (int g = 0; g < 4; ++g) {
          const __m512i bit = _mm512_inserti64x4(_mm512_set1_epi8(static_cast<char>(1 << (2 * g))),
                                                 _mm256_set1_epi8(static_cast<char>(1 << (2 * g + 1))), 1);
          u[g] = _mm512_mask_add_epi8(u[g], _mm512_test_epi8_mask(qh, bit), u[g], _mm512_set1_epi8(16));
        }
      }
      AccumulateUnitPairs<kN>(u, scale, k, _mm_cvtss_f32(d_dmin), x, acc);
    }
    const hn::Full256<float> d8;
    for (int t = 0; t < kN; ++t) {
      out[t] = _mm512_reduce_add_ps(acc[t]) + hn::GetLane(hn::SumOfLanes(d8, hn::Vec256<float>{offset[t]}));
    }
  }
};

// Q6_K: in half h, quarters 0 and 1 (ql[64h .. 64h + 64), low nibbles) are
// pair 2h, quarters 2 and 3 (the same bytes' high nibbles) pair 2h + 1,
// their activations adjacent; the top two bits of quarter j are bits 2j of
// qh[32h .. 32h + 32) (gemv_int8_kquant-inl.h, Scaled16Kernel::Quarter).
// Each 16 bytes of a pair have their own scale: sub-blocks 4p .. 4p + 3.
struct Q6_KUnitPairKernel {
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float*, const XSums& xs, float* out) {
    const auto* blocks = reinterpret_cast<const BlockQ6_K*>(row);
    const auto x = Vectors<kN>(xs, cols);
    // The top bits into bits 4-5 (16-bit shifts; the masks drop what they
    // bring across bytes): quarters 0 and 1 up by 4 and 2, 2 and 3 down by 0
    // and 2.
    const __m512i up = _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1);
    const __m512i down = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(2), 1);
    const __m512i low4 = _mm512_set1_epi8(0x0F), bits45 = _mm512_set1_epi8(0x30);
    const ScaleSelect scale_of[4] = {ScaleSelect::Of(0, 8), ScaleSelect::Of(4, 8), ScaleSelect::Of(8, 8),
                                     ScaleSelect::Of(12, 8)};
    __m512 acc[kN], offset[kN];
    for (int t = 0; t < kN; ++t) acc[t] = offset[t] = _mm512_setzero_ps();
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      StreamStep<sizeof(BlockQ6_K)>(blocks + k);
      const BlockQ6_K& b = blocks[k];
      const float d = LoadHalf(&b.d);
      const __m128i sc = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.scales));
      // offset -= 32 d sc_s (sum of x over sub-block s).
      const __m512 o = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(sc)), _mm512_set1_ps(32.0f * d));
      for (int t = 0; t < kN; ++t) offset[t] = _mm512_fnmadd_ps(o, _mm512_loadu_ps(x[t].sum16_8k + 16 * k), offset[t]);
      const __m256i sc16 = _mm256_cvtepi8_epi16(sc);
      __m512i u[4], scale[4];
      for (int h = 0; h < 2; ++h) {
        const __m512i ql = _mm512_loadu_si512(b.ql + 64 * h);
        const __m512i qh = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qh + 32 * h)));
        // (low & 0x0F) | high: ternary-logic function 0xF8 is A | (B & C).
        const __m512i high0 = _mm512_and_si512(_mm512_sllv_epi16(qh, up), bits45);
        const __m512i high1 = _mm512_and_si512(_mm512_srlv_epi16(qh, down), bits45);
        u[2 * h] = _mm512_ternarylogic_epi32(high0, ql, low4, 0xF8);
        u[2 * h + 1] = _mm512_ternarylogic_epi32(high1, _mm512_srli_epi16(ql, 4), low4, 0xF8);
      }
      for (int p = 0; p < 4; ++p) scale[p] = scale_of[p].From(sc16);
      AccumulateUnitPairs<kN>(u, scale, k, d, x, acc);
    }
    for (int t = 0; t < kN; ++t) out[t] = _mm512_reduce_add_ps(_mm512_add_ps(acc[t], offset[t]));
  }
};

template <class Block>
using Q45_KKernel = Q45_KUnitPairKernel<Block>;
using Q6_KKernel = Q6_KUnitPairKernel;
#else
template <class Block>
using Q45_KKernel = Q45_KInt8Kernel<Block>;
using Q6_KKernel = Scaled16Kernel<BlockQ6_K>;
#endif  // !CK_HWY_PORTABLE_TARGET && HWY_TARGET <= HWY_AVX3

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMV_INT8_KQUANT_AVX512_INL_H_
