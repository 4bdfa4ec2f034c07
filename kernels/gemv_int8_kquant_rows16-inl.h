// Per-target decode GEMV of Q4_K_R16 (row_groups.h: Q4_K's rows, ggml's
// blocks, interleaved in groups of 16) and the loops over groups that
// Q6_K_R16 shares (SuperBlockGroups), re-included by gemv_kquant.cc once
// per Highway target after gemv_int8_rows16-inl.h, whose vectors of rows it
// uses; the portable target gathers rows (RowGroupKernel there).
//
// Why: the unit-lanes kernel (Q4_K_L) spends about 52 vector ops a row and
// super-block, 22 of them on the scales, minimums and d of that one row,
// which left it near the read bandwidth in cache (docs/kernels.md, "Session
// 30"). With a row in each 32-bit lane those costs are shared by 16 (or 8,
// 4) rows: a sub-block's byte products add up in its rows' lanes, one
// multiply by the lanes' 6-bit scales takes them to the super-block's int32
// sum, and d, dmin and the conversions are a vector op each per super-block
// ("Session 45").
//
// Per super-block k of row r and vector t (x ~ q8k * s per 256 values):
//   y += s (d[r, k] sum_j sc_j sum(u q) - dmin[r, k] sum_j m_j bsum_j)
// with bsum_j the integer sum of q over sub-block j (XSums::bsum16_8k, two
// per sub-block), both sums in int32; a spiky super-block adds the same
// with its rounding error r8k, s' and rbsum16_8k.

#if defined(CK_KERNELS_GEMV_INT8_KQUANT_ROWS16_INL_H_) ==                      \
    defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_INT8_KQUANT_ROWS16_INL_H_
#undef CK_KERNELS_GEMV_INT8_KQUANT_ROWS16_INL_H_
#else
#define CK_KERNELS_GEMV_INT8_KQUANT_ROWS16_INL_H_
#endif

#if !CK_HWY_PORTABLE_TARGET
HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

// The int32 sums of adjacent int16 products a * b in each lane (pmaddwd).
HWY_INLINE VR RowPairProducts(VRW a, VRW b) {
#if HWY_TARGET == HWY_AVX3_DL
  return VR{_mm512_madd_epi16(a.raw, b.raw)};
#elif HWY_TARGET <= HWY_AVX2
  return VR{_mm256_madd_epi16(a.raw, b.raw)};
#else
  return VR{_mm_madd_epi16(a.raw, b.raw)};
#endif
}

// The loops that the super-block dtypes' groups share (Q4_K_R16, Q6_K_R16):
// over a matrix's groups of rows, their block columns and the activation
// sets. Kernel gives L, Terms (what it takes of an activation set's
// super-block besides its bytes), TermsOf(bsum16, terms) from the set's
// sums per 16 values, and AddBlockColumn<kN>(p, x, terms, scale, acc,
// stream), which adds block column p times the kN sets to acc.
template <class Kernel> struct SuperBlockGroups {
  static constexpr int kRowGroup = ck::kRowGroup;

  // out[t][v] = the 16 rows of the group at g times vector t (kN vectors).
  template <int kN>
  static HWY_INLINE void Group(const uint8_t *g, int64_t nb,
                               const std::array<XSums, kN> &x,
                               VRF (&out)[kN][kGroupVectors]) {
    for (int t = 0; t < kN; ++t) {
      for (int v = 0; v < kGroupVectors; ++v)
        out[t][v] = hn::Zero(DRF());
    }
    for (int64_t k = 0; k < nb; ++k) {
      const uint8_t *p = g + k * Kernel::L.column_bytes();
      const int8_t *xq[kN];
      typename Kernel::Terms terms[kN];
      float scale[kN];
      for (int t = 0; t < kN; ++t) {
        xq[t] = x[t].q8k + k * kQK_K;
        Kernel::TermsOf(x[t].bsum16_8k + 16 * k, terms[t]);
        scale[t] = x[t].scale8k[k];
      }
      Kernel::template AddBlockColumn<kN>(p, xq, terms, scale, out, true);
    }
    // The spiky super-blocks' rounding errors, in a loop of their own as in
    // the 32-weight groups.
    for (int t = 0; t < kN; ++t) {
      for (int64_t k = 0; k < nb; ++k) {
        const float rs = x[t].rscale8k[k];
        if (rs == 0.0f)
          continue;
        const int8_t *r = x[t].r8k + k * kQK_K;
        typename Kernel::Terms terms[1];
        Kernel::TermsOf(x[t].rbsum16_8k + 16 * k, terms[0]);
        Kernel::template AddBlockColumn<1>(g + k * Kernel::L.column_bytes(), &r,
                                           terms, &rs, &out[t], false);
      }
    }
  }

  // Y[t * y_stride + r] for the groups of rows [r0, r1) (multiples of 16)
  // and kN vectors from vector t0.
  template <int kN>
  static HWY_INLINE void Groups(const uint8_t *W, size_t row_bytes, int64_t r0,
                                int64_t r1, int64_t cols, const XSums &xs,
                                int64_t t0, float *y, int64_t y_stride) {
    std::array<XSums, kN> x;
    for (int t = 0; t < kN; ++t)
      x[t] = VectorOf(xs, cols, t0 + t);
    for (int64_t r = r0; r < r1; r += kRowGroup) {
      VRF out[kN][kGroupVectors];
      Group<kN>(W + static_cast<size_t>(r) * row_bytes, cols / kQK_K, x, out);
      for (int t = 0; t < kN; ++t) {
        for (int v = 0; v < kGroupVectors; ++v)
          hn::StoreU(out[t][v], DRF(),
                     y + (t0 + t) * y_stride + r + v * kRowLanes);
      }
    }
  }

  static void Rows(const uint8_t *W, size_t row_bytes, int64_t r0, int64_t r1,
                   int64_t cols, const float *, const XSums &xs, int64_t n,
                   float *y, int64_t y_stride) {
    GroupsByVectors<Kernel>(W, row_bytes, r0, r1, cols, xs, n, y, y_stride);
  }
};

template <>
struct RowGroupKernel<BlockQ4_K> : SuperBlockGroups<RowGroupKernel<BlockQ4_K>> {
  static constexpr RowGroupLayout L = row_group_layout(DType::Q4_K_R16);
  static constexpr int kSubBlocks = kQK_K / kQK;
  static inline const StreamDistances &kStream =
      kSuperBlockGroupStreamDistances;

  // pshufb indices that take byte kByte of each 32-bit lane to its low byte
  // (VNNI: the int32 multiplier of a sub-block's sums) or to both of its
  // int16 halves (the pair-sum targets: pmaddwd's), zeros elsewhere.
  template <int kByte> static HWY_INLINE VRB ScaleIndex() {
    alignas(64) static constexpr auto kIndex = [] {
      std::array<int8_t, 64> idx{};
      for (int i = 0; i < 64; i += 4) {
        const auto at = static_cast<int8_t>(i % 16 + kByte);
        idx[i] = at;
        idx[i + 1] = idx[i + 3] = -128;
        idx[i + 2] = HWY_TARGET == HWY_AVX3_DL ? int8_t{-128} : at;
      }
      return idx;
    }();
    return hn::Load(DRB(), kIndex.data());
  }
  // Sub-block j's scale (kMin 0) or minimum (1) in each row's lane, from
  // the four vectors of a block column's unpacked 6-bit fields.
  template <int kJ> static HWY_INLINE VRW ScaleOf(const VR *fields) {
    const VRB bytes = hn::BitCast(DRB(), fields[kJ / 4]);
    return hn::BitCast(DRW(),
                       hn::TableLookupBytesOr0(bytes, ScaleIndex<kJ % 4>()));
  }

  // ggml's 12 scale bytes of vector v's rows (words 0-2 of their block) as
  // sc 0-3, sc 4-7, m 0-3, m 4-7, four bytes a lane each.
  static HWY_INLINE void UnpackScales(const uint8_t *p, int v, VR *sc, VR *m) {
    const auto word = [&](int j) {
      return hn::LoadU(DR(), reinterpret_cast<const int32_t *>(
                                 p + L.word_at(j, v * kRowLanes)));
    };
    const VR u0 = word(0), u1 = word(1), u2 = word(2);
    const VR low6 = hn::Set(DR(), 0x3F3F3F3F), low4 = hn::Set(DR(), 0x0F0F0F0F),
             top2 = hn::Set(DR(), 0x30303030);
    sc[0] = hn::And(u0, low6);
    m[0] = hn::And(u1, low6);
    sc[1] = hn::Or(hn::And(u2, low4), hn::And(hn::ShiftRight<2>(u0), top2));
    m[1] = hn::Or(hn::And(hn::ShiftRight<4>(u2), low4),
                  hn::And(hn::ShiftRight<2>(u1), top2));
  }

  // The integer sums of vectors v0 .. v0 + kV - 1 of the group's rows in
  // block column p with the kN activation sets x[t] (256 bytes each):
  // sums[t][v] = sum_j sc_j sum(u x), mins[t][v] = sum_j m_j bsum_j,
  // bsum_pairs[t][i] holding bsum_i and bsum_(i+2) of sub-blocks i, i + 2
  // (i = 0, 1, 4, 5) as int16 halves. With stream, the weight stream ahead
  // of p is prefetched on the way (SubBlockPairs).
  template <int kN, int kV>
  static HWY_INLINE void
  SuperBlockSums(const uint8_t *p, int v0, const int8_t *const *x,
                 const int32_t (*bsum_pairs)[4], VR (*sums)[kV],
                 VR (*mins)[kV], bool stream) {
    VR sc[kV][2], m[kV][2];
    for (int v = 0; v < kV; ++v)
      UnpackScales(p, v0 + v, sc[v], m[v]);
    for (int t = 0; t < kN; ++t) {
      for (int v = 0; v < kV; ++v)
        sums[t][v] = hn::Zero(DR());
    }
    SubBlockPairs<0, kN, kV>(p, v0, x, sc, sums, stream);
    // (m0, m2), (m1, m3), (m4, m6), (m5, m7) as int16 pairs of each lane.
    const VR low16 = hn::Set(DR(), 0x00FF00FF);
    for (int v = 0; v < kV; ++v) {
      const VRW mp[4] = {
          hn::BitCast(DRW(), hn::And(m[v][0], low16)),
          hn::BitCast(DRW(), hn::And(hn::ShiftRight<8>(m[v][0]), low16)),
          hn::BitCast(DRW(), hn::And(m[v][1], low16)),
          hn::BitCast(DRW(), hn::And(hn::ShiftRight<8>(m[v][1]), low16))};
      for (int t = 0; t < kN; ++t) {
        VR s = RowPairProducts(
            mp[0], hn::BitCast(DRW(), hn::Set(DR(), bsum_pairs[t][0])));
        for (int i = 1; i < 4; ++i)
          s = hn::Add(s, RowPairProducts(mp[i],
                                         hn::BitCast(DRW(), hn::Set(DR(), bsum_pairs[t][i]))));
        mins[t][v] = s;
      }
    }
  }

  // Sub-blocks 2c and 2c + 1 and on (the low and high nibbles of qs words
  // 8c .. 8c + 7), added to sums[t][v] with their scales. A recursion of
  // inlined functions, so that the scale shuffles take constant indices.
  // The kV vectors of rows go through each word together: each activation
  // quad is broadcast once for all of them and stays in a register (one
  // vector at a time, GCC kept the broadcasts of a whole super-block in
  // stack slots and loaded each word twice).
  // With stream, the pair prefetches its quarter of the stream ahead
  // (kStream, 9 lines) one line per quad word, the ninth with the first:
  // bursts of prefetches wait for the core's fill buffers, and the loads
  // behind them with them. On an Intel Xeon whose probe reads 18.7 GB/s,
  // the whole column's 36 lines asked for at once streamed 13.5-14.8 GB/s
  // from DRAM, a burst of 9 per pair 16.5-17.0 ("Session 50"); later, a
  // burst per pair 15.1-16.9 and a line per word 16.8-17.7 in the same
  // minutes ("Session 55").
  template <int kC, int kN, int kV>
  static HWY_INLINE void SubBlockPairs(const uint8_t *p, int v0,
                                       const int8_t *const *x,
                                       const VR (*sc)[2], VR (*sums)[kV],
                                       bool stream) {
    if constexpr (kC < kSubBlocks / 2) {
      constexpr size_t kStreamPart = L.column_bytes() / (kSubBlocks / 2);
      constexpr int kWords = 8; // quad words a pair reads, a line each
      constexpr size_t kWordLines = kWords * 64;
      static_assert(kStreamPart % 64 == 0 && kStreamPart > kWordLines,
                    "a pair prefetches whole lines, one or more per word");
      const uint8_t *part = p + kC * kStreamPart;
      if (stream)
        StreamStep<kStreamPart - kWordLines>(part + kWordLines, kStream);
#if HWY_TARGET == HWY_AVX3_DL
      VR low_sums[kN][kV], high_sums[kN][kV];
      const VR zero = hn::Zero(DR());
#else
      // A pair adds at most 2 x 15 x 128 and a sub-block 8 of them: int16.
      VRW low_sums[kN][kV], high_sums[kN][kV];
      const VRW zero = hn::Zero(DRW());
#endif
      for (int t = 0; t < kN; ++t) {
        for (int v = 0; v < kV; ++v)
          low_sums[t][v] = high_sums[t][v] = zero;
      }
      for (int i = 0; i < kWords; ++i) {
        if (stream)
          StreamStep<64>(part + 64 * i, kStream);
        VRU low[kV], high[kV];
        for (int v = 0; v < kV; ++v) {
          const VRU bytes = hn::LoadU(
              DRU(), p + L.quant_at(8 * kC + i, (v0 + v) * kRowLanes));
          low[v] = hn::And(bytes, hn::Set(DRU(), 0xF));
          high[v] = hn::And(
              hn::BitCast(DRU(), hn::ShiftRight<4>(hn::BitCast(DRW(), bytes))),
              hn::Set(DRU(), 0xF));
        }
        for (int t = 0; t < kN; ++t) {
          const int8_t *xc = x[t] + 64 * kC + 4 * i;
          for (int v = 0; v < kV; ++v) {
#if HWY_TARGET == HWY_AVX3_DL
            low_sums[t][v] = QuadDotU(low_sums[t][v], low[v], xc);
            high_sums[t][v] = QuadDotU(high_sums[t][v], high[v], xc + 32);
#else
            low_sums[t][v] = hn::Add(low_sums[t][v], QuadPairs(low[v], xc));
            high_sums[t][v] =
                hn::Add(high_sums[t][v], QuadPairs(high[v], xc + 32));
            KeepInRegister(low_sums[t][v]);
            KeepInRegister(high_sums[t][v]);
#endif
          }
        }
      }
      for (int v = 0; v < kV; ++v) {
        const VRW sc_low = ScaleOf<2 * kC>(sc[v]),
                  sc_high = ScaleOf<2 * kC + 1>(sc[v]);
        for (int t = 0; t < kN; ++t) {
#if HWY_TARGET == HWY_AVX3_DL
          sums[t][v] = hn::Add(
              sums[t][v],
              hn::Add(hn::Mul(low_sums[t][v], hn::BitCast(DR(), sc_low)),
                      hn::Mul(high_sums[t][v], hn::BitCast(DR(), sc_high))));
#else
          sums[t][v] = hn::Add(
              sums[t][v], hn::Add(RowPairProducts(low_sums[t][v], sc_low),
                                  RowPairProducts(high_sums[t][v], sc_high)));
#endif
        }
      }
      SubBlockPairs<kC + 1, kN, kV>(p, v0, x, sc, sums, stream);
    }
  }

  // What AddBlockColumn takes of an activation set's super-block besides
  // its bytes: the bsum pairs, from its 16 sums per 16 values
  // (XSums::bsum16_8k's order: sub-block j's at j and 8 + j).
  using Terms = int32_t[4];
  static HWY_INLINE void TermsOf(const int16_t *b16, int32_t *out) {
    int32_t b[kSubBlocks];
    for (int j = 0; j < kSubBlocks; ++j)
      b[j] = int32_t{b16[j]} + b16[8 + j];
    for (int i = 0; i < 4; ++i) {
      const int j = i % 2 + 4 * (i / 2);
      out[i] = static_cast<int32_t>((static_cast<uint32_t>(b[j + 2]) << 16) |
                                    (static_cast<uint32_t>(b[j]) & 0xFFFF));
    }
  }

  // acc[t][v] += scale[t] (d (sums with x[t]) - dmin (mins)) for the kN
  // activation sets x[t] of block column p. One activation set takes all
  // of the group's vectors of rows at once (the decode step); several take
  // one at a time, as their accumulators would not fit in the registers.
  // With stream (the first pass, not the spiky columns'), the first
  // vectors of rows prefetch the stream ahead.
  template <int kN>
  static HWY_INLINE void
  AddBlockColumn(const uint8_t *p, const int8_t *const *x,
                 const int32_t (*bsum_pairs)[4], const float *scale,
                 VRF (*acc)[kGroupVectors], bool stream) {
    constexpr int kV = kN == 1 ? kGroupVectors : 1;
    for (int v0 = 0; v0 < kGroupVectors; v0 += kV) {
      VR sums[kN][kV], mins[kN][kV];
      SuperBlockSums<kN, kV>(p, v0, x, bsum_pairs, sums, mins,
                             stream && v0 == 0);
      for (int v = 0; v < kV; ++v) {
        const VRF d = GroupHalves(p + L.field_at(0, (v0 + v) * kRowLanes));
        const VRF dmin = GroupHalves(p + L.field_at(1, (v0 + v) * kRowLanes));
        for (int t = 0; t < kN; ++t) {
          const VRF s = hn::Set(DRF(), scale[t]);
          VRF &a = acc[t][v0 + v];
          a = hn::MulAdd(hn::ConvertTo(DRF(), sums[t][v]), hn::Mul(d, s), a);
          a = hn::NegMulAdd(hn::ConvertTo(DRF(), mins[t][v]), hn::Mul(dmin, s),
                            a);
        }
      }
    }
  }
};

} // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif // !CK_HWY_PORTABLE_TARGET

#endif // CK_KERNELS_GEMV_INT8_KQUANT_ROWS16_INL_H_
