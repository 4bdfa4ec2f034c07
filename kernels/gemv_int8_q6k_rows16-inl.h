// Per-target decode GEMV of Q6_K_R16 (row_groups.h: Q6_K's rows, ggml's
// blocks, interleaved in groups of 16), re-included by gemv_kquant.cc once
// per Highway target after gemv_int8_kquant_rows16-inl.h, whose loops over
// groups, block columns and activation sets (SuperBlockGroups) it shares;
// the portable target gathers rows (RowGroupKernel in
// gemv_int8_rows16-inl.h).
//
// Why: the unit-lanes kernel (Q6_K_L) takes one row at a time and reads a
// super-block's 256 activation bytes for each row's 210 weight bytes. On an
// Intel Xeon it streamed 78-80 % of the read probe from DRAM, where a loop
// of the same compute per line without those reads streamed 88-96 %
// (BM_stream_work; docs/kernels.md, "Session 51"). Here a row is a 32-bit
// lane, so each activation quad is broadcast once for 16 (8, 4) rows.
//
// Per super-block of row r and activation set t (x ~ q8k * s per 256):
//   y += s d[r] (sum_j sc_j sum(u q) - 32 sum_j sc_j bsum_j)
// over the 16 sub-blocks j, u the 6-bit weights and bsum_j the integer sum
// of q over sub-block j (XSums::bsum16_8k), all sums in int32; a spiky
// super-block adds the same with its rounding error r8k.

#if defined(CK_KERNELS_GEMV_INT8_Q6K_ROWS16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_INT8_Q6K_ROWS16_INL_H_
#undef CK_KERNELS_GEMV_INT8_Q6K_ROWS16_INL_H_
#else
#define CK_KERNELS_GEMV_INT8_Q6K_ROWS16_INL_H_
#endif

#if !CK_HWY_PORTABLE_TARGET
HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

template <>
struct RowGroupKernel<BlockQ6_K> : SuperBlockGroups<RowGroupKernel<BlockQ6_K>> {
  static constexpr RowGroupLayout L = row_group_layout(DType::Q6_K_R16);
  static inline const StreamDistances& kStream = kSuperBlockGroupStreamDistances;

  // Sub-block j's bsum_j at j / 2 + 8 (j % 2) of the 16 sums (evens then
  // odds), here as the int16 pairs that meet the scale pairs of
  // ScalePairs: terms[2w] = (bsum_4w, bsum_4w+2), terms[2w + 1] =
  // (bsum_4w+1, bsum_4w+3).
  using Terms = int32_t[8];
  static HWY_INLINE void TermsOf(const int16_t* b16, int32_t* out) {
    const auto bsum = [b16](int j) { return static_cast<uint32_t>(static_cast<uint16_t>(b16[j / 2 + 8 * (j % 2)])); };
    for (int w = 0; w < 4; ++w) {
      out[2 * w] = static_cast<int32_t>(bsum(4 * w) | bsum(4 * w + 2) << 16);
      out[2 * w + 1] = static_cast<int32_t>(bsum(4 * w + 1) | bsum(4 * w + 3) << 16);
    }
  }

  // Word j of vector v's rows in block column p.
  static HWY_INLINE VRU Word(const uint8_t* p, int j, int v) { return hn::LoadU(DRU(), p + L.word_at(j, v * kRowLanes)); }
  // Scale word w (sc_4w .. sc_4w+3, int8) of vector v's rows as int16 pairs
  // in each lane: kOdd 0 (sc_4w, sc_4w+2), 1 (sc_4w+1, sc_4w+3).
  template <int kOdd>
  static HWY_INLINE VRW ScalePairs(const uint8_t* p, int w, int v) {
    const VRW word = hn::BitCast(DRW(), Word(p, kQ6ScaleWord + w, v));
    return hn::ShiftRight<8>(kOdd ? word : hn::ShiftLeft<8>(word));
  }
  // Sub-block j's scale in each lane: as one int32 (VNNI's vpmulld), or
  // (sc_j, sc_j) as int16 (the pair-sum targets' pmaddwd).
#if HWY_TARGET == HWY_AVX3_DL
  using ScaleVec = VR;
#else
  using ScaleVec = VRW;
#endif
  // From a vector's 8 scale pairs (ScalePairs of words 0-3, even then odd).
  template <int kJ>
  static HWY_INLINE ScaleVec ScaleOf(const VRW* pairs) {
    const VRW both = pairs[2 * (kJ / 4) + kJ % 2];
#if HWY_TARGET == HWY_AVX3_DL
    const VR lanes = hn::BitCast(DR(), both);
    return hn::ShiftRight<16>(kJ % 4 < 2 ? hn::ShiftLeft<16>(lanes) : lanes);
#else
    alignas(64) static constexpr auto kIndex = [] {
      std::array<uint8_t, 64> idx{};
      for (int i = 0; i < 64; ++i) idx[i] = static_cast<uint8_t>(i / 4 * 4 % 16 + (kJ % 4 < 2 ? 0 : 2) + i % 2);
      return idx;
    }();
    return hn::BitCast(DRW(), hn::TableLookupBytes(hn::BitCast(DRU(), both), hn::Load(DRU(), kIndex.data())));
#endif
  }

  // The four quarters' quads of vector v's rows for l = 4i .. 4i + 3 of
  // half kH: u = 4 bits of ql (quarters 0, 1 low nibbles of words i and 8
  // + i, quarters 2, 3 their high ones) | 2 bits of qh word i (bits 2q)
  // << 4; the bits that the 16-bit shifts move across bytes are masked off.
  template <int kH>
  static HWY_INLINE void Quads(const uint8_t* p, int i, int v, VRU* u) {
    const VRU a = Word(p, kQ6QlWord + 16 * kH + i, v), b = Word(p, kQ6QlWord + 16 * kH + 8 + i, v),
              c = Word(p, kQ6QhWord + 8 * kH + i, v);
    const VRU low4 = hn::Set(DRU(), 0x0F), top2 = hn::Set(DRU(), 0x30);
    const auto shifted = [](VRU x, auto shift) { return hn::BitCast(DRU(), shift(hn::BitCast(DRW(), x))); };
    u[0] = hn::Or(hn::And(a, low4), hn::And(shifted(c, [](VRW x) { return hn::ShiftLeft<4>(x); }), top2));
    u[1] = hn::Or(hn::And(b, low4), hn::And(shifted(c, [](VRW x) { return hn::ShiftLeft<2>(x); }), top2));
    u[2] = hn::Or(hn::And(shifted(a, [](VRW x) { return hn::ShiftRight<4>(x); }), low4), hn::And(c, top2));
    u[3] = hn::Or(hn::And(shifted(b, [](VRW x) { return hn::ShiftRight<4>(x); }), low4),
                  hn::And(shifted(c, [](VRW x) { return hn::ShiftRight<2>(x); }), top2));
  }

  // sums[t][v] += the scaled sums of the sub-blocks 8 kH + 2q + kE (q the
  // quarter; kE 0: l < 16, 1: l >= 16) of vectors v0 .. v0 + kV - 1 with
  // x[t]. VNNI adds each sub-block's 16 byte products in int32 and
  // multiplies by its scale once; the pair-sum targets add two quads' pair
  // sums in int16 (2 x 2 x 63 x 128 fits) and widen them by a pmaddwd
  // with the scale pair.
  template <int kH, int kE, int kN, int kV>
  static HWY_INLINE void SubBlocks(const uint8_t* p, int v0, const int8_t* const* x, const VRW (*pairs)[8],
                                   VR (*sums)[kV]) {
#if HWY_TARGET == HWY_AVX3_DL
    VR s[kN][kV][4];
    for (int t = 0; t < kN; ++t)
      for (int v = 0; v < kV; ++v)
        for (int q = 0; q < 4; ++q) s[t][v][q] = hn::Zero(DR());
#else
    VRW s[kN][kV][4];
#endif
    for (int i = 4 * kE; i < 4 * kE + 4; ++i) {
      VRU u[kV][4];
      for (int v = 0; v < kV; ++v) Quads<kH>(p, i, v0 + v, u[v]);
      for (int t = 0; t < kN; ++t) {
        for (int q = 0; q < 4; ++q) {
          const int8_t* xq = x[t] + 128 * kH + 32 * q + 4 * i;
          for (int v = 0; v < kV; ++v) {
#if HWY_TARGET == HWY_AVX3_DL
            s[t][v][q] = QuadDotU(s[t][v][q], u[v][q], xq);
#else
            const VRW pairs = QuadPairs(u[v][q], xq);
            s[t][v][q] = i % 2 == 0 ? pairs : hn::Add(s[t][v][q], pairs);
#endif
          }
        }
      }
#if HWY_TARGET != HWY_AVX3_DL
      if (i % 2 == 1) AddScaled<kH, kE, kN, kV>(pairs, s, sums);
#endif
    }
#if HWY_TARGET == HWY_AVX3_DL
    AddScaled<kH, kE, kN, kV>(pairs, s, sums);
#endif
  }
  // sums[t][v] += s[t][v][q] times sub-block 8 kH + 2q + kE's scale.
  template <int kH, int kE, int kN, int kV, class S>
  static HWY_INLINE void AddScaled(const VRW (*pairs)[8], S (*s)[kV][4], VR (*sums)[kV]) {
    for (int v = 0; v < kV; ++v) {
      const ScaleVec scale[4] = {ScaleOf<8 * kH + kE>(pairs[v]), ScaleOf<8 * kH + 2 + kE>(pairs[v]),
                                 ScaleOf<8 * kH + 4 + kE>(pairs[v]), ScaleOf<8 * kH + 6 + kE>(pairs[v])};
      for (int t = 0; t < kN; ++t) {
        for (int q = 0; q < 4; ++q) {
#if HWY_TARGET == HWY_AVX3_DL
          sums[t][v] = hn::Add(sums[t][v], hn::Mul(s[t][v][q], scale[q]));
#else
          sums[t][v] = hn::Add(sums[t][v], RowPairProducts(s[t][v][q], scale[q]));
#endif
        }
      }
    }
  }

  // acc[t][v] += scale[t] d (the integer sums) for the kN activation sets
  // x[t] of block column p, as Q4_K_R16's (the decode step takes all of the
  // group's vectors of rows at once). With stream, each quarter of the
  // column's passes first prefetches a quarter of the stream ahead.
  template <int kN>
  static HWY_INLINE void AddBlockColumn(const uint8_t* p, const int8_t* const* x, const int32_t (*terms)[8],
                                        const float* scale, VRF (*acc)[kGroupVectors], bool stream) {
    constexpr int kV = kN == 1 ? kGroupVectors : 1;
    constexpr size_t kStreamPart = L.column_bytes() / 4;
    for (int v0 = 0; v0 < kGroupVectors; v0 += kV) {
      VR sums[kN][kV];
      // The scale pairs once per column, then -32 sum_j sc_j bsum_j to
      // start with.
      VRW pairs[kV][8];
      for (int v = 0; v < kV; ++v) {
        for (int w = 0; w < 4; ++w) {
          pairs[v][2 * w] = ScalePairs<0>(p, w, v0 + v);
          pairs[v][2 * w + 1] = ScalePairs<1>(p, w, v0 + v);
        }
        for (int t = 0; t < kN; ++t) {
          VR off = hn::Zero(DR());
          for (int j = 0; j < 8; ++j) {
            off = hn::Add(off, RowPairProducts(pairs[v][j], hn::BitCast(DRW(), hn::Set(DR(), terms[t][j]))));
          }
          sums[t][v] = hn::Neg(hn::ShiftLeft<5>(off));
        }
      }
      const bool first = stream && v0 == 0;
      if (first) StreamStep<kStreamPart>(p, kStream);
      SubBlocks<0, 0, kN, kV>(p, v0, x, pairs, sums);
      if (first) StreamStep<kStreamPart>(p + kStreamPart, kStream);
      SubBlocks<0, 1, kN, kV>(p, v0, x, pairs, sums);
      if (first) StreamStep<kStreamPart>(p + 2 * kStreamPart, kStream);
      SubBlocks<1, 0, kN, kV>(p, v0, x, pairs, sums);
      if (first) StreamStep<kStreamPart>(p + 3 * kStreamPart, kStream);
      SubBlocks<1, 1, kN, kV>(p, v0, x, pairs, sums);
      for (int v = 0; v < kV; ++v) {
        const VRF d = GroupHalves(p + L.field_at(0, (v0 + v) * kRowLanes));
        for (int t = 0; t < kN; ++t) {
          VRF& a = acc[t][v0 + v];
          a = hn::MulAdd(hn::ConvertTo(DRF(), sums[t][v]), hn::Mul(d, hn::Set(DRF(), scale[t])), a);
        }
      }
    }
  }
};

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif  // !CK_HWY_PORTABLE_TARGET

#endif  // CK_KERNELS_GEMV_INT8_Q6K_ROWS16_INL_H_
