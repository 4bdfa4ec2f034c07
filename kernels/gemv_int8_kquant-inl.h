// Per-target decode GEMV of the K-quants (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K) and
// IQ4_XS. Included by gemv_kquant.cc after gemv_int8-inl.h, once per
// Highway target; the portable target runs gemv_int8-inl.h's decode_u8
// kernel instead.
//
// The K-quants multiply activations rounded per super-block (XSums' q8k:
// one scale per 256 values, with the second pass over the spiky ones) and
// apply their integer sub-block scales to the byte pair sums (pmaddwd by
// the scales, DotU8Scaled), so a super-block's eight units of 32 add up in
// int32 and meet the float scales once: d times the activation scale. With
// a scale per 32 activations every unit ended in a lane reduction and float
// work of its own, which made decode compute-bound on Zen 3 (docs/kernels.md,
// session 12). The offsets that d scales too (Q6_K's -32, Q3_K's -4) join
// those sums in int32, by the integer sums of the activation bytes per 16;
// the minimums (Q4_K, Q5_K, Q2_K) multiply the sums of the rounded
// activations per 16 or 32 values in float, once per super-block.
// IQ4_XS (signed codebook bytes, which pmaddwd scales cannot follow on the
// pair-sum targets) keeps gemv_int8-inl.h's units of 32 and groups of four.

#if defined(CK_KERNELS_GEMV_INT8_KQUANT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_INT8_KQUANT_INL_H_
#undef CK_KERNELS_GEMV_INT8_KQUANT_INL_H_
#else
#define CK_KERNELS_GEMV_INT8_KQUANT_INL_H_
#endif

#if !CK_HWY_PORTABLE_TARGET
HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

// The scales of a Q4_K / Q5_K block: sc[0..7] then m[0..7], one byte each.
// The 6-bit fields are unpacked four at a time in 32-bit words, as ggml
// does: on AVX2 and up in the four lanes of one vector (a quarter of the
// scalar version's instructions, which were a third of the loop).
#if HWY_TARGET <= HWY_AVX2
// In every 128-bit block of u: a block's 12 scale bytes (and 4 more) ->
// its sc[0..7], m[0..7]. One vector of 256 bits unpacks two blocks.
template <class D8>
HWY_INLINE hn::Vec<D8> UnpackQ45_KScalesOf(D8 d8, hn::Vec<D8> u) {
  const hn::Repartition<uint32_t, D8> d32;
  // Words u0, u2, u1, u2 shifted by 0, 0, 0, 4 and masked: u0 & 0x3F..,
  // u2 & 0x0F.., u1 & 0x3F.., (u2 >> 4) & 0x0F.. ...
  alignas(16) static constexpr uint8_t kWords0212[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11};
  alignas(16) static constexpr uint32_t kShift[4] = {0, 0, 0, 4};
  alignas(16) static constexpr uint32_t kLow[4] = {0x3F3F3F3F, 0x0F0F0F0F, 0x3F3F3F3F, 0x0F0F0F0F};
  alignas(16) static constexpr uint32_t kTop[4] = {0, 0x03030303, 0, 0x03030303};
  const auto words = hn::BitCast(d32, hn::TableLookupBytes(u, hn::LoadDup128(d8, kWords0212)));
  const auto low = hn::And(hn::Shr(words, hn::LoadDup128(d32, kShift)), hn::LoadDup128(d32, kLow));
  // ... with the top two bits of u0 and u1 (words u0, u0, u1, u1) as bits
  // 4-5 of sc 4..7 and m 4..7.
  const auto u32 = hn::BitCast(d32, u);
  const auto top = hn::ShiftLeft<4>(hn::And(hn::ShiftRight<6>(hn::InterleaveLower(d32, u32, u32)), hn::LoadDup128(d32, kTop)));
  return hn::BitCast(d8, hn::Or(low, top));
}
#endif
HWY_INLINE hn::Vec<hn::Full128<uint8_t>> UnpackQ45_KScales(const uint8_t* scales) {
  const hn::Full128<uint8_t> d8;
#if HWY_TARGET <= HWY_AVX2
  // The 12 bytes and the 4 after them (the block goes on: qh or qs).
  return UnpackQ45_KScalesOf(d8, hn::LoadU(d8, scales));
#else
  uint32_t u[3];
  std::memcpy(u, scales, sizeof(u));
  HWY_ALIGN const uint32_t packed[4] = {
      u[0] & 0x3F3F3F3Fu,                                               // sc 0..3
      (u[2] & 0x0F0F0F0Fu) | (((u[0] >> 6) & 0x03030303u) << 4),        // sc 4..7
      u[1] & 0x3F3F3F3Fu,                                               // m 0..3
      ((u[2] >> 4) & 0x0F0F0F0Fu) | (((u[1] >> 6) & 0x03030303u) << 4),  // m 4..7
  };
  return hn::Load(d8, reinterpret_cast<const uint8_t*>(packed));
#endif
}

// sums[t] += the int32 sums of a super-block's units kJ.. (unit(j, w) gives
// unit j's bytes and int16 scales, j a std::integral_constant so that its
// shuffles take immediates) with the activation bytes xq[t]. A recursion
// of inlined functions: as immediately called lambdas GCC left some
// out of line.
template <int kJ, int kN, class UnitFn>
HWY_INLINE void AddUnitSums(const UnitFn& unit, const int8_t* const* xq, VQ* sums) {
  if constexpr (kJ < kQK_K / kQK) {
    ScaledBytes w[kBlockVectors];
    unit(std::integral_constant<int, kJ>(), w);
    for (int t = 0; t < kN; ++t) sums[t] = UnitSum(w, xq[t] + kJ * kQK, sums[t]);
    AddUnitSums<kJ + 1, kN>(unit, xq, sums);
  }
}
template <int kN, class UnitFn>
HWY_INLINE void SuperBlockSums(const UnitFn& unit, const int8_t* const* xq, VQ* sums) {
  for (int t = 0; t < kN; ++t) sums[t] = hn::Zero(DQ());
  AddUnitSums<0, kN>(unit, xq, sums);
}

// For kernels whose offsets are not in d's integer sums: none.
struct NoIntegerOffset {
  HWY_INLINE VQ operator()(VQ sums, const int16_t*) const { return sums; }
};

// acc[t] += d * s * (the sums of super-block k with q8k), and d * s' * (the
// sums with r8k) where the super-block is spiky (kSpiky: the caller found
// some); offset(sums, the integer sums per 16 of q8k or r8k) adds an offset
// that d scales too (Q6_K's -32, Q3_K's -4) in int32. Where a vector's
// super-block is spiky, its rounding error takes the same pass, as a
// vector of its own: the unit's bytes and scales then serve both.
template <int kN, bool kSpiky, class UnitFn, class OffsetFn = NoIntegerOffset>
HWY_INLINE void AccumulateSuperBlock(const UnitFn& unit, int64_t k, float d, const std::array<XSums, kN>& x,
                                     VQF* acc, const OffsetFn& offset = {}) {
  const int8_t* xq[2 * kN];
  for (int t = 0; t < kN; ++t) {
    xq[t] = x[t].q8k + k * kQK_K;
    xq[kN + t] = x[t].r8k + k * kQK_K;
  }
  // Zero or not by its bits, in a general register: a float compare would
  // take one of the vector pipes that bound these kernels.
  uint32_t spiky = 0;
  if constexpr (kSpiky) {
    for (int t = 0; t < kN; ++t) spiky |= std::bit_cast<uint32_t>(x[t].rscale8k[k]);
  }
  VQ sums[2 * kN];
  if (spiky != 0) {
    SuperBlockSums<2 * kN>(unit, xq, sums);
  } else {
    SuperBlockSums<kN>(unit, xq, sums);
  }
  for (int t = 0; t < kN; ++t) {
    const VQ all = offset(sums[t], x[t].bsum16_8k + 16 * k);
    acc[t] = hn::MulAdd(hn::Set(DQF(), d * x[t].scale8k[k]), hn::ConvertTo(DQF(), all), acc[t]);
    if (spiky != 0) {
      const VQ rsum = offset(sums[kN + t], x[t].rbsum16_8k + 16 * k);
      acc[t] = hn::MulAdd(hn::Set(DQF(), d * x[t].rscale8k[k]), hn::ConvertTo(DQF(), rsum), acc[t]);
    }
  }
}

// Whether any of the kN vectors has a spiky super-block in a row of cols:
// the kernels then run a loop that looks for them (AccumulateSuperBlock's
// kSpiky), else one without the branch (with it GCC kept the loop's
// pointers in memory: hot Q4_K_L 1024 x 2048 63 -> 58 us).
template <int kN>
HWY_INLINE bool AnySpiky(const XSums& xs, int64_t cols) {
  uint32_t spiky = 0;
  for (int64_t i = 0; i < kN * (cols / kQK_K); ++i) spiky |= std::bit_cast<uint32_t>(xs.rscale8k[i]);
  return spiky != 0;
}
// Kernel::RowDot<kN, AnySpiky>: Dot for the kernels of one row at a time.
template <class Kernel, int kN>
HWY_INLINE void RowDotSpikyOrNot(const uint8_t* row, int64_t cols, const XSums& xs, float* out) {
  if (AnySpiky<kN>(xs, cols)) {
    Kernel::template RowDot<kN, true>(row, cols, xs, out);
  } else {
    Kernel::template RowDot<kN, false>(row, cols, xs, out);
  }
}

// Scale tables: int16 scales, each doubled into a 32-bit lane, so that
// ScaleOf<i> (an immediate shuffle, no control vector to load) puts one in
// every int16 lane. DoubledTables(s): from s[0..8) per 128-bit block, the
// tables of s[0..4) and s[4..8). Two unpacks: until session 25 a table
// took three shuffles; on Zen 3 shuffles share two of the four vector
// pipes, whose load bounds these kernels (docs/kernels.md, session 25). A
// control vector per unit (vpshufb) would trade the immediate shuffles for
// loads, and Zen 3 takes two vector loads a cycle: slower there.
using DS32 = hn::Repartition<int32_t, DB>;
using VS32 = hn::Vec<DS32>;
using D8x16 = hn::Full128<uint8_t>;
HWY_INLINE void DoubledTables(VS16 s, VS32* tables) {
  tables[0] = hn::BitCast(DS32(), hn::InterleaveLower(DS16(), s, s));
  tables[1] = hn::BitCast(DS32(), hn::InterleaveUpper(DS16(), s, s));
}
// The int32 sums of adjacent products a * b of int16 lanes (pmaddwd).
HWY_INLINE VQ MulPairs(VS16 a, VS16 b) {
#if HWY_TARGET <= HWY_AVX2
  return VQ{_mm256_madd_epi16(a.raw, b.raw)};
#else
  return VQ{_mm_madd_epi16(a.raw, b.raw)};
#endif
}
template <int kLane>
HWY_INLINE VS16 ScaleOf(VS32 table) {
  return hn::BitCast(DS16(), hn::Broadcast<kLane>(table));
}
// v in every 128-bit block.
HWY_INLINE VB EveryBlock(hn::Vec<D8x16> v) {
#if HWY_TARGET <= HWY_AVX2
  return hn::Combine(DB(), v, v);
#else
  return v;
#endif
}

// The 16 int8 sub-block scales in v as int16: one vector on 256-bit
// targets, two on 128-bit ones.
HWY_INLINE void Scales16(hn::Vec<hn::Full128<int8_t>> v, VS16* sc16) {
#if HWY_TARGET <= HWY_AVX2
  sc16[0] = hn::PromoteTo(DS16(), v);
#else
  const hn::Full128<int8_t> d8;
  sc16[0] = hn::PromoteTo(DS16(), hn::LowerHalf(v));
  sc16[1] = hn::PromoteTo(DS16(), hn::UpperHalf(hn::Half<decltype(d8)>(), v));
#endif
}

// sums - 2^kShift sum_s sc_s bsums_s: the offsets -32 sc_s (Q6_K) or -4
// sc_s (Q3_K) times the integer sums of the activation bytes per sub-block,
// sc16 the 16 int16 scales and bsums those sums in the same order
// (XSums::bsum16_8k's: the even sub-blocks, then the odd ones).
template <int kShift>
HWY_INLINE VQ SubtractIntegerOffset(const VS16* sc16, VQ sums, const int16_t* bsums) {
  VQ o = hn::Zero(DQ());
  for (size_t v = 0; v < kBlockVectors; ++v) {
    o = hn::Add(o, MulPairs(sc16[v], hn::LoadU(DS16(), bsums + v * hn::Lanes(DS16()))));
  }
  return hn::Sub(sums, hn::ShiftLeft<kShift>(o));
}

// Bit kFrom of each byte moved to bit kTo, the other bits cleared: a mask
// and a 16-bit shift (alone in its byte, the bit cannot cross into the
// next). Against a compare and a blend per bit: Q5_K in cache 121 -> 99 us.
template <int kFrom, int kTo>
HWY_INLINE VB MoveBit(VB bytes) {
  const hn::Repartition<uint16_t, DB> dw;
  const auto bit = hn::BitCast(dw, hn::And(bytes, hn::Set(DB(), static_cast<uint8_t>(1u << kFrom))));
  if constexpr (kFrom < kTo) {
    return hn::BitCast(DB(), hn::ShiftLeft<kTo - kFrom>(bit));
  } else {
    return hn::BitCast(DB(), hn::ShiftRight<kFrom - kTo>(bit));
  }
}

// offset[t] -= dmin m_j times the sums of x per unit j, for the m_j in
// bytes 8..15 of sc_m (UnpackQ45_KScales) of super-block k.
template <int kN>
HWY_INLINE void SubtractMinimums(hn::Vec<hn::Full128<uint8_t>> sc_m, float dmin, int64_t k,
                                 const std::array<XSums, kN>& x, VQF* offset) {
  const hn::Full128<uint8_t> d8;
  const auto m = hn::ShiftRightBytes<8>(d8, sc_m);
  const hn::Rebind<int32_t, DQF> di;
  const hn::Rebind<uint8_t, DQF> du8;
  for (size_t i = 0; i < 8; i += hn::Lanes(DQF())) {
    const hn::Vec<decltype(du8)> mi{(i == 0 ? m : hn::ShiftRightBytes<4>(d8, m)).raw};
    // dmin m_j, negated by the multiply-add (one vector op less than
    // negating dmin first).
    const VQF ci = hn::Mul(hn::ConvertTo(DQF(), hn::PromoteTo(di, mi)), hn::Set(DQF(), dmin));
    for (int t = 0; t < kN; ++t) offset[t] = hn::NegMulAdd(ci, hn::LoadU(DQF(), x[t].sum32_8k + 8 * k + i), offset[t]);
  }
}

// Q4_K and Q5_K: a super-block is eight units of 32, unit j = 2g + e the
// low (e = 0) or high (e = 1) nibbles of qs[32g .. 32g + 32), Q5_K's fifth
// bit j of qh[0 .. 32); w = d sc_j u - dmin m_j.
template <class Block>
struct Q45_KInt8Kernel {
  static constexpr bool kHighBit = std::is_same_v<Block, BlockQ5_K>;

  template <int kN>
  static HWY_INLINE void Dot(const uint8_t* row, int64_t cols, const float*, const XSums& xs, float* out) {
    RowDotSpikyOrNot<Q45_KInt8Kernel, kN>(row, cols, xs, out);
  }
  template <int kN, bool kSpiky>
  static HWY_INLINE void RowDot(const uint8_t* row, int64_t cols, const XSums& xs, float* out) {
    const auto* blocks = reinterpret_cast<const Block*>(row);
    const auto x = Vectors<kN>(xs, cols);
    VQF acc[kN], offset[kN];
    for (int t = 0; t < kN; ++t) acc[t] = offset[t] = hn::Zero(DQF());
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      StreamStep<sizeof(Block)>(blocks + k);
      const Block& b = blocks[k];
      const auto sc_m = UnpackQ45_KScales(b.scales);
      float dd[2];
      LoadHalf2(&b.d, dd);
      SubtractMinimums<kN>(sc_m, dd[1], k, x, offset);
      // sc_j: ScaleOf<j % 4> of table j / 4.
      VS32 tables[2];
      DoubledTables(hn::BitCast(DS16(), hn::ZipLower(EveryBlock(sc_m), hn::Zero(DB()))), tables);
      const auto unit = [&b, &tables](auto j, ScaledBytes* w) {
        constexpr int kJ = decltype(j)::value;
        VB u[kBlockVectors];
        Nibbles<kJ % 2 == 1>(b.qs + 32 * (kJ / 2), u);
        const VS16 scale = ScaleOf<kJ % 4>(tables[kJ / 4]);
        for (size_t v = 0; v < kBlockVectors; ++v) {
          if constexpr (kHighBit) u[v] = hn::Or(u[v], MoveBit<kJ, 4>(hn::LoadU(DB(), b.qh + v * kByteLanes)));
          w[v] = {u[v], scale};
        }
      };
      AccumulateSuperBlock<kN, kSpiky>(unit, k, dd[0], x, acc);
    }
    for (int t = 0; t < kN; ++t) {
      out[t] = hn::GetLane(hn::SumOfLanes(DQF(), acc[t])) + hn::GetLane(hn::SumOfLanes(DQF(), offset[t]));
    }
  }
};

// The int16 pair sums of u * x (pmaddubsw): the unit-lanes kernels'.
HWY_INLINE VS16 BytePairs(VB u, const int8_t* x) {
#if HWY_TARGET <= HWY_AVX2
  return VS16{_mm256_maddubs_epi16(u.raw, hn::LoadU(DBS(), x).raw)};
#else
  return VS16{_mm_maddubs_epi16(u.raw, hn::LoadU(DBS(), x).raw)};
#endif
}

// The unit-lanes activations of super-block k: xl[t] vector t's, xl[kN +
// t] its rounding error's. Returns zero unless (kSpiky) some vector's
// super-block is spiky: by its scale's bits, in a general register
// (AccumulateSuperBlock).
template <int kN, bool kSpiky>
HWY_INLINE uint32_t LanesActivations(const std::array<XSums, kN>& x, int64_t k, const int8_t** xl) {
  uint32_t spiky = 0;
  if constexpr (kSpiky) {
    for (int t = 0; t < kN; ++t) spiky |= std::bit_cast<uint32_t>(x[t].rscale8k[k]);
  }
  for (int t = 0; t < kN; ++t) {
    xl[t] = x[t].q8kl + k * kQK_K;
    xl[kN + t] = x[t].r8kl + k * kQK_K;
  }
  return spiky;
}

// The rows of the unit-lanes kernels (Q4_K_L, Q5_K_L, Q6_K_L): Kernel gives
// Block and RowSuperBlocks<kI, kRows, kN, kSpiky>(b, k, x, acc, offset),
// which adds super-block k of row kI to acc[kI] and offset[kI].
template <class Kernel>
struct LanesRows {
  // out[i * kN + t] = dot(row i, vector t) for the rows i in kI, row_bytes
  // apart, each row by the same operations whatever the rows and kN; the
  // rows' stream in address order (Int8Kernel::RowsDot).
  template <int kN, bool kSpiky, int... kI>
  static HWY_INLINE void RowsDot(std::integer_sequence<int, kI...>, const uint8_t* row, size_t row_bytes,
                                 int64_t cols, const XSums& xs, float* out) {
    constexpr int kRows = sizeof...(kI);
    using Block = typename Kernel::Block;
    const Block* b[kRows] = {reinterpret_cast<const Block*>(row + kI * row_bytes)...};
    const auto x = Vectors<kN>(xs, cols);
    VQF acc[kRows][kN], offset[kRows][kN];
    for (int i = 0; i < kRows; ++i)
      for (int t = 0; t < kN; ++t) acc[i][t] = offset[i][t] = hn::Zero(DQF());
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      StreamStep<kRows * sizeof(Block)>(row + kRows * k * sizeof(Block));
      (Kernel::template RowSuperBlocks<kI, kRows, kN, kSpiky>(b, k, x, acc, offset), ...);
    }
    VQF sums[kRows * kN];
    for (int i = 0; i < kRows; ++i)
      for (int t = 0; t < kN; ++t) sums[i * kN + t] = hn::Add(acc[i][t], offset[i][t]);
    StoreTotals<kRows * kN>(sums, out);
  }
  // The rows without the spiky super-blocks' branch where the vectors have
  // none (AnySpiky).
  template <int kN, int kRows>
  static HWY_INLINE void Rows(const uint8_t* row, size_t row_bytes, int64_t cols, const XSums& xs, float* out) {
    if (AnySpiky<kN>(xs, cols)) {
      RowsDot<kN, true>(std::make_integer_sequence<int, kRows>(), row, row_bytes, cols, xs, out);
    } else {
      RowsDot<kN, false>(std::make_integer_sequence<int, kRows>(), row, row_bytes, cols, xs, out);
    }
  }

  template <int kN>
  static HWY_INLINE void Dot(const uint8_t* row, int64_t cols, const float*, const XSums& xs, float* out) {
    Rows<kN, 1>(row, 0, cols, xs, out);
  }
  // One vector, several rows at a time (GemvRowsOneVector): the rows share
  // the end of a row's sums and the activations' loads.
  static constexpr int kRowsPerDot = 4;
  template <int kRows>
  static HWY_INLINE void DotRows(const uint8_t* row, size_t row_bytes, int64_t cols, const XSums& xs, float* out) {
    Rows<1, kRows>(row, row_bytes, cols, xs, out);
  }
};

// Q4_K_L and Q5_K_L: ggml's blocks with the units in the lanes
// (unit_lanes.h), multiplied with the activations in the same order
// (XSums::q8kl). Each 32-bit lane collects one unit's byte products, so the
// pmaddubsw pair sums of a super-block add up in int16 and meet the eight
// scales in one pmaddwd, where Q45_KInt8Kernel scales every unit on its own
// (docs/kernels.md, "Session 29"). On 128-bit targets the two halves of a
// 32-byte packed vector are units 0-3 and 4-7.
template <class BlockType>
struct Q45_KLanesKernel : LanesRows<Q45_KLanesKernel<BlockType>> {
  using Block = BlockType;
  static constexpr bool kHighBit = std::is_same_v<Block, BlockQ5_KL>;
  static constexpr size_t kHalves = 32 / kByteLanes;
  // Groups of four packed bytes whose pair sums add up in int16 before
  // the scales: a pair sum is at most 2 x 15 x 127 (4 bits), eight of them
  // 30480; with 5 bits (2 x 31 x 127) four.
  static constexpr int kGroupsPerScale = kHighBit ? 2 : 4;

  // p[t][c] += the pair sums of packed group kI (low and high nibbles).
  template <int kI, int kN>
  static HWY_INLINE void AddGroup(const Block& b, const int8_t* const* xl, VS16 (*p)[kHalves]) {
    const hn::Repartition<uint16_t, DB> dw;
    for (size_t c = 0; c < kHalves; ++c) {
      const VB v = hn::LoadU(DB(), b.qs + 32 * kI + c * kByteLanes);
      VB lo = hn::And(v, hn::Set(DB(), 0x0F));
      VB hi = hn::And(hn::BitCast(DB(), hn::ShiftRight<4>(hn::BitCast(dw, v))), hn::Set(DB(), 0x0F));
      if constexpr (kHighBit) {
        const VB qh = hn::LoadU(DB(), b.qh + c * kByteLanes);
        lo = hn::Or(lo, MoveBit<2 * kI, 4>(qh));
        hi = hn::Or(hi, MoveBit<2 * kI + 1, 4>(qh));
      }
      for (int t = 0; t < kN; ++t) {
        const int8_t* x = xl[t] + 32 * kI + c * kByteLanes;
        p[t][c] = hn::Add(p[t][c], hn::Add(BytePairs(lo, x), BytePairs(hi, x + 128)));
      }
    }
  }

  // sums[t] = the int32 sums, scaled by the units' sc_j, of super-block b
  // with xl[t] (its 256 activations in the unit-lanes order).
  template <int kI, int kN>
  static HWY_INLINE void AddScaledGroups(const Block& b, const VS16* scale, const int8_t* const* xl, VQ* sums) {
    if constexpr (kI < 4) {
      VS16 p[kN][kHalves];
      for (int t = 0; t < kN; ++t)
        for (size_t c = 0; c < kHalves; ++c) p[t][c] = hn::Zero(DS16());
      AddGroup<kI, kN>(b, xl, p);
      if constexpr (kGroupsPerScale > 1) AddGroup<kI + 1, kN>(b, xl, p);
      if constexpr (kGroupsPerScale > 2) {
        AddGroup<kI + 2, kN>(b, xl, p);
        AddGroup<kI + 3, kN>(b, xl, p);
      }
      for (int t = 0; t < kN; ++t)
        for (size_t c = 0; c < kHalves; ++c) sums[t] = hn::Add(sums[t], MulPairs(p[t][c], scale[c]));
      AddScaledGroups<kI + kGroupsPerScale, kN>(b, scale, xl, sums);
    }
  }
  template <int kN>
  static HWY_INLINE void SuperBlockSums(const Block& b, const VS16* scale, const int8_t* const* xl, VQ* sums) {
    for (int t = 0; t < kN; ++t) sums[t] = hn::Zero(DQ());
    AddScaledGroups<0, kN>(b, scale, xl, sums);
  }
  // The int16 pair (sc_L, sc_L) in 32-bit lane L: one byte shuffle of the
  // unpacked scales (sc_m in every 128-bit block).
  static HWY_INLINE void Scales(VB sc_m, VS16* scale) {
    alignas(32) static constexpr uint8_t kScaleOfLane[32] = {
        0, 0x80, 0, 0x80, 1, 0x80, 1, 0x80, 2, 0x80, 2, 0x80, 3, 0x80, 3, 0x80,
        4, 0x80, 4, 0x80, 5, 0x80, 5, 0x80, 6, 0x80, 6, 0x80, 7, 0x80, 7, 0x80};
    for (size_t c = 0; c < kHalves; ++c) {
      scale[c] = hn::BitCast(DS16(), hn::TableLookupBytesOr0(sc_m, hn::Load(DB(), kScaleOfLane + c * kByteLanes)));
    }
  }
  // acc[t] and offset[t] += super-block b (the k-th of its row) times
  // vector t; sc_m its unpacked scales, alone and in every 128-bit block.
  template <int kN, bool kSpiky>
  static HWY_INLINE void SuperBlock(const Block& b, hn::Vec<hn::Full128<uint8_t>> sc_m, VB every_sc_m, int64_t k,
                                    const std::array<XSums, kN>& x, VQF* acc, VQF* offset) {
    // One at a time: LoadHalf2's pair goes through memory.
    const float d = LoadHalf(&b.d), dmin = LoadHalf(&b.dmin);
    SubtractMinimums<kN>(sc_m, dmin, k, x, offset);
    VS16 scale[kHalves];
    Scales(every_sc_m, scale);
    // Where a vector's super-block is spiky, its rounding error (r8kl)
    // takes the same pass, as a vector of its own: the nibbles and scales
    // then serve both (a second pass out of line made them again; hot,
    // a quarter of the super-blocks spiky: 75 -> 64 us; docs/kernels.md,
    // session 31).
    const int8_t* xl[2 * kN];
    const uint32_t spiky = LanesActivations<kN, kSpiky>(x, k, xl);
    VQ sums[2 * kN];
    if (spiky != 0) {
      SuperBlockSums<2 * kN>(b, scale, xl, sums);
    } else {
      SuperBlockSums<kN>(b, scale, xl, sums);
    }
    for (int t = 0; t < kN; ++t) {
      acc[t] = hn::MulAdd(hn::Set(DQF(), d * x[t].scale8k[k]), hn::ConvertTo(DQF(), sums[t]), acc[t]);
      if (spiky != 0) {
        acc[t] = hn::MulAdd(hn::Set(DQF(), d * x[t].rscale8k[k]), hn::ConvertTo(DQF(), sums[kN + t]), acc[t]);
      }
    }
  }

  // SuperBlock k of row kI of b. On 256-bit vectors rows go in pairs: an
  // even kI does rows kI and kI + 1, whose scales one vector unpacks (half
  // the unpacking; docs/kernels.md, session 30), and an odd kI nothing.
  template <int kI, int kRows, int kN, bool kSpiky>
  static HWY_INLINE void RowSuperBlocks(const Block* const* b, int64_t k, const std::array<XSums, kN>& x,
                                        VQF (*acc)[kN], VQF (*offset)[kN]) {
    if constexpr (kHalves == 1 && kRows >= 2) {
      if constexpr (kI % 2 == 0) {
        const hn::Half<DB> dh;
        const auto both = UnpackQ45_KScalesOf(DB(), hn::Combine(DB(), hn::LoadU(dh, b[kI + 1][k].scales),
                                                                  hn::LoadU(dh, b[kI][k].scales)));
        SuperBlock<kN, kSpiky>(b[kI][k], hn::LowerHalf(dh, both), hn::ConcatLowerLower(DB(), both, both), k, x,
                               acc[kI], offset[kI]);
        SuperBlock<kN, kSpiky>(b[kI + 1][k], hn::UpperHalf(dh, both), hn::ConcatUpperUpper(DB(), both, both), k, x,
                               acc[kI + 1], offset[kI + 1]);
      }
    } else {
      const auto sc_m = UnpackQ45_KScales(b[kI][k].scales);
      SuperBlock<kN, kSpiky>(b[kI][k], sc_m, EveryBlock(sc_m), k, x, acc[kI], offset[kI]);
    }
  }

};

// Q6_K, Q2_K and Q3_K: 16 sub-blocks of 16 weights with int16 scales sc_s.
// In half h the weights 128h + 32j + l (quarter j, l < 32) lie in sub-block
// 8h + 2j + l/16 and share their bytes across the quarters (FORMATS.md):
//   Q6_K: w = d sc_s (u - 32), u = 4 bits of ql[64h + 32(j%2) + l] (low
//         nibble for j < 2) | 2 bits (2j) of qh[32h + l] << 4;
//   Q2_K: w = d (sc_s & 15) u - dmin (sc_s >> 4), u = bits 2j of qs[32h + l];
//   Q3_K: w = d sc_s (u - 4), u = bits 2j of qs[32h + l] | bit 4h + j of
//         hmask[l] << 2, sc_s = q3_k_scale (signed).
// The scales multiply the byte pair sums (DotU8Scaled), so a = d for every
// unit; the offsets (-32 d sc_s, -dmin m_s, -4 d sc_s) multiply the sums
// of x per 16.
template <class Block>
struct Scaled16Kernel {
  static constexpr bool kQ6 = std::is_same_v<Block, BlockQ6_K>;
  static constexpr bool kQ3 = std::is_same_v<Block, BlockQ3_K>;
  static constexpr bool kIntegerOffset = kQ6 || kQ3;

  // The bytes u of quarter j of half h (16-bit shifts: each byte keeps its
  // own bits under the masks).
  template <int h, int j>
  static HWY_INLINE VB Quarter(const Block& b, size_t v) {
    const hn::Repartition<uint16_t, DB> dw;
    if constexpr (kQ6) {
      const auto ql = hn::BitCast(dw, hn::LoadU(DB(), b.ql + 64 * h + 32 * (j % 2) + v * kByteLanes));
      const auto qh = hn::BitCast(dw, hn::LoadU(DB(), b.qh + 32 * h + v * kByteLanes));
      const auto low = j < 2 ? ql : hn::ShiftRight<4>(ql);
      const auto high = j == 0 ? hn::ShiftLeft<4>(qh) : j == 1 ? hn::ShiftLeft<2>(qh) : j == 2 ? qh : hn::ShiftRight<2>(qh);
      return hn::Or(hn::And(hn::BitCast(DB(), low), hn::Set(DB(), 0x0F)),
                    hn::And(hn::BitCast(DB(), high), hn::Set(DB(), 0x30)));
    } else {
      const auto qs = hn::BitCast(dw, hn::LoadU(DB(), b.qs + 32 * h + v * kByteLanes));
      VB u = hn::And(hn::BitCast(DB(), hn::ShiftRightSame(qs, 2 * j)), hn::Set(DB(), 3));
      if constexpr (kQ3) u = hn::Or(u, MoveBit<4 * h + j, 2>(hn::LoadU(DB(), b.hmask + v * kByteLanes)));
      return u;
    }
  }

  // The 16 sub-block scales (sc) and Q2_K's minimums (m) as signed bytes,
  // each array written by one vector store: the vector loads from them
  // below are then forwarded from that store (scalar stores of the values
  // made every later vector load wait for them, and cost Q6_K a third of
  // its speed).
  static HWY_INLINE void Scales(const Block& b, int8_t* sc, int8_t* m) {
    const hn::Full128<int8_t> d8;
    const hn::Full128<uint8_t> du8;
    if constexpr (kQ6) {
      hn::Store(hn::LoadU(d8, b.scales), d8, sc);
    } else if constexpr (kQ3) {
      // 6-bit values + 32: the low nibbles from scales[0..7], the top two
      // bits from scales[8..11] (four per byte), unpacked four at a time in
      // 32-bit words, as ggml does (q3_k_scale's order).
      uint32_t w[3];
      std::memcpy(w, b.scales, sizeof(w));
      constexpr uint32_t kLow = 0x0F0F0F0Fu, kTop = 0x03030303u;
      const __m128i packed = _mm_setr_epi32(static_cast<int>((w[0] & kLow) | ((w[2] & kTop) << 4)),
                                            static_cast<int>((w[1] & kLow) | (((w[2] >> 2) & kTop) << 4)),
                                            static_cast<int>(((w[0] >> 4) & kLow) | (((w[2] >> 4) & kTop) << 4)),
                                            static_cast<int>(((w[1] >> 4) & kLow) | (((w[2] >> 6) & kTop) << 4)));
      hn::Store(hn::Sub(hn::Vec<decltype(d8)>{packed}, hn::Set(d8, 32)), d8, sc);
    } else {
      const auto raw = hn::LoadU(du8, b.scales);
      hn::Store(hn::BitCast(d8, hn::And(raw, hn::Set(du8, 0xF))), d8, sc);
      hn::Store(hn::BitCast(d8, hn::ShiftRight<4>(raw)), d8, m);
    }
  }

  template <int kN>
  static HWY_INLINE void Dot(const uint8_t* row, int64_t cols, const float*, const XSums& xs, float* out) {
    RowDotSpikyOrNot<Scaled16Kernel, kN>(row, cols, xs, out);
  }
  template <int kN, bool kSpiky>
  static HWY_INLINE void RowDot(const uint8_t* row, int64_t cols, const XSums& xs, float* out) {
    const hn::CappedTag<float, 16> df16;
    const hn::Rebind<int32_t, decltype(df16)> di32;
    const hn::Rebind<int8_t, decltype(df16)> di8;
    const auto* blocks = reinterpret_cast<const Block*>(row);
    const auto x = Vectors<kN>(xs, cols);
    VQF acc[kN];
    hn::Vec<decltype(df16)> offset[kN];
    for (int t = 0; t < kN; ++t) {
      acc[t] = hn::Zero(DQF());
      offset[t] = hn::Zero(df16);
    }
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      StreamStep<sizeof(Block)>(blocks + k);
      const Block& b = blocks[k];
      const float d = LoadHalf(&b.d);
      HWY_ALIGN int8_t sc[16], m[16];
      Scales(b, sc, m);
      if constexpr (!kIntegerOffset) {
        // Q2_K's offsets, -dmin m_s, times the sums of x over each
        // sub-block, in float: dmin is not d.
        const float factor = -LoadHalf(&b.dmin);
        for (size_t i = 0; i < 16; i += hn::Lanes(df16)) {
          const auto o = hn::Mul(hn::ConvertTo(df16, hn::PromoteTo(di32, hn::LoadU(di8, m + i))), hn::Set(df16, factor));
          for (int t = 0; t < kN; ++t) {
            offset[t] = hn::MulAdd(o, hn::LoadU(df16, x[t].sum16_8k + 16 * k + i), offset[t]);
          }
        }
      }
      // Unit 4h + j is quarter j of half h; its first 16 weights have
      // scale 8h + 2j, the rest 8h + 2j + 1: ScaleOf<j> of tables[v][h],
      // those of the even scales for the first 16 weights and of the odd
      // ones for the rest (one vector of 32 with both, or two of 16).
      alignas(16) static constexpr uint8_t kEvenOdd[16] = {0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15};
      const hn::Full128<int8_t> d8;
      const auto even_odd = hn::TableLookupBytes(hn::Load(d8, sc), hn::BitCast(d8, hn::Load(D8x16(), kEvenOdd)));
      VS16 sc16[kBlockVectors];  // the scales, even then odd ones
      Scales16(even_odd, sc16);
      VS32 tables[kBlockVectors][2];
      for (size_t v = 0; v < kBlockVectors; ++v) DoubledTables(sc16[v], tables[v]);
      const auto unit = [&b, &tables](auto u, ScaledBytes* w) {
        constexpr int kH = decltype(u)::value / 4, kJ = decltype(u)::value % 4;
        for (size_t v = 0; v < kBlockVectors; ++v) {
          w[v].u = Quarter<kH, kJ>(b, v);
          w[v].scale = ScaleOf<kJ>(tables[v][kH]);
        }
      };
      if constexpr (kIntegerOffset) {
        // -32 sc_s (Q6_K), -4 sc_s (Q3_K) times the integer sums of the
        // bytes per sub-block, added to the sums before d scales them: a
        // pmaddwd, a shift and a subtraction where the offsets in float took
        // 13 vector ops a super-block (Q6_K in cache, 1024 x 2048, Zen 3:
        // 93-95 -> 83-84 us; docs/kernels.md, session 27). Exact, as the
        // rest of the sums.
        const auto integer_offset = [&sc16](VQ sums, const int16_t* bsums) {
          return SubtractIntegerOffset<kQ6 ? 5 : 2>(sc16, sums, bsums);
        };
        AccumulateSuperBlock<kN, kSpiky>(unit, k, d, x, acc, integer_offset);
      } else {
        AccumulateSuperBlock<kN, kSpiky>(unit, k, d, x, acc);
      }
    }
    for (int t = 0; t < kN; ++t) {
      out[t] = hn::GetLane(hn::SumOfLanes(DQF(), acc[t]));
      if constexpr (!kIntegerOffset) out[t] += hn::GetLane(hn::SumOfLanes(df16, offset[t]));
    }
  }
};

// Q6_K_L: Q6_K with its weights in the unit-lanes order (unit_lanes.h), so
// that lane j of vectors 0-3 (the first halves of the units) holds
// sub-block 2j and of vectors 4-7 sub-block 2j + 1. Two vectors' pair sums
// add up in int16 (2 x 2 x 63 x 127 <= 32767) and meet eight scales in one
// pmaddwd: per super-block 8 pmaddubsw, 4 int16 adds and 4 pmaddwd where
// Scaled16Kernel takes 8 pmaddubsw, 8 pmaddwd and 8 scale broadcasts, and
// the scales are stored in the order the pmaddwd wants (docs/kernels.md,
// "Session 32"). The -32 offsets join the sums in int32 as Scaled16Kernel's.
struct Q6_KLanesKernel : LanesRows<Q6_KLanesKernel> {
  using Block = BlockQ6_KL;
  static constexpr size_t kHalves = 32 / kByteLanes;

  // sums[t] += the pair sums of vectors 2g, 2g + 1 (the first halves of the
  // units) times sa and of 4 + 2g, 5 + 2g times sb: ql[32i ..] holds vector i's low
  // four bits and vector 4 + i's as its high nibbles, qh[32g ..] the top two
  // bits of vectors 2g, 2g + 1, 4 + 2g, 5 + 2g at bits 0, 2, 4, 6.
  template <int kG, int kN>
  static HWY_INLINE void AddGroupPair(const Block& b, const VS16* sa, const VS16* sb, const int8_t* const* xl,
                                      VQ* sums) {
    const hn::Repartition<uint16_t, DB> dw;
    const VB low4 = hn::Set(DB(), 0x0F), top2 = hn::Set(DB(), 0x30);
    for (size_t c = 0; c < kHalves; ++c) {
      const size_t at = c * kByteLanes;
      const auto qh = hn::BitCast(dw, hn::LoadU(DB(), b.qh + 32 * kG + at));
      const auto ql0 = hn::BitCast(dw, hn::LoadU(DB(), b.ql + 64 * kG + at));
      const auto ql1 = hn::BitCast(dw, hn::LoadU(DB(), b.ql + 64 * kG + 32 + at));
      const VB lo0 = hn::Or(hn::And(hn::BitCast(DB(), ql0), low4), hn::And(hn::BitCast(DB(), hn::ShiftLeft<4>(qh)), top2));
      const VB lo1 = hn::Or(hn::And(hn::BitCast(DB(), ql1), low4), hn::And(hn::BitCast(DB(), hn::ShiftLeft<2>(qh)), top2));
      const VB hi0 = hn::Or(hn::And(hn::BitCast(DB(), hn::ShiftRight<4>(ql0)), low4), hn::And(hn::BitCast(DB(), qh), top2));
      const VB hi1 = hn::Or(hn::And(hn::BitCast(DB(), hn::ShiftRight<4>(ql1)), low4),
                            hn::And(hn::BitCast(DB(), hn::ShiftRight<2>(qh)), top2));
      for (int t = 0; t < kN; ++t) {
        const int8_t* x = xl[t] + 64 * kG + at;
        const VS16 pl = hn::Add(BytePairs(lo0, x), BytePairs(lo1, x + 32));
        const VS16 ph = hn::Add(BytePairs(hi0, x + 128), BytePairs(hi1, x + 160));
        sums[t] = hn::Add(sums[t], hn::Add(MulPairs(pl, sa[c]), MulPairs(ph, sb[c])));
      }
    }
  }
  // sums[t] = the int32 sums, scaled by the sub-blocks' scales (sa: the
  // first halves' in lanes, sb: the second halves'), of b with xl[t].
  template <int kN>
  static HWY_INLINE void SuperBlockSums(const Block& b, const VS16* sa, const VS16* sb, const int8_t* const* xl,
                                        VQ* sums) {
    for (int t = 0; t < kN; ++t) sums[t] = hn::Zero(DQ());
    AddGroupPair<0, kN>(b, sa, sb, xl, sums);
    AddGroupPair<1, kN>(b, sa, sb, xl, sums);
  }

  // The scales of a half (from scales[at]) as int16 pairs: in lane j of
  // half c, (sc, sc) of sub-block 2j (at = c * lanes) or 2j + 1 (at = 16 +
  // c * lanes), from the stored order (the even sub-blocks, then the odd
  // ones), which is also the offsets' order (sc16).
  static HWY_INLINE VS16 ScalePairs(hn::Vec<hn::Full128<int8_t>> raw, size_t at) {
    alignas(16) static constexpr uint8_t kPairs[40] = {0,  0,  1,  1,  2,  2,  3,  3,  4,  4,  5,  5,  6,  6,
                                                       7,  7,  8,  8,  9,  9,  10, 10, 11, 11, 12, 12, 13, 13,
                                                       14, 14, 15, 15, 0,  0,  0,  0,  0,  0,  0,  0};
    const hn::Full128<int8_t> d8;
    const hn::Rebind<int8_t, DS16> dh;
    const auto pairs = hn::TableLookupBytes(raw, hn::BitCast(d8, hn::LoadU(D8x16(), kPairs + at)));
    return hn::PromoteTo(DS16(), hn::Vec<decltype(dh)>{pairs.raw});
  }

  template <int kI, int kRows, int kN, bool kSpiky>
  static HWY_INLINE void RowSuperBlocks(const Block* const* rows, int64_t k, const std::array<XSums, kN>& x,
                                        VQF (*acc)[kN], VQF (*)[kN]) {
    const Block& b = rows[kI][k];
    const float d = LoadHalf(&b.d);
    const hn::Full128<int8_t> d8;
    const auto raw = hn::LoadU(d8, b.scales);
    VS16 sa[kHalves], sb[kHalves], sc16[kBlockVectors];
    for (size_t c = 0; c < kHalves; ++c) {
      sa[c] = ScalePairs(raw, c * hn::Lanes(DS16()));
      sb[c] = ScalePairs(raw, 16 + c * hn::Lanes(DS16()));
    }
    Scales16(raw, sc16);
    // A spiky super-block's rounding error takes the same pass, as one more
    // vector (Q45_KLanesKernel::SuperBlock).
    const int8_t* xl[2 * kN];
    const uint32_t spiky = LanesActivations<kN, kSpiky>(x, k, xl);
    VQ sums[2 * kN];
    if (spiky != 0) {
      SuperBlockSums<2 * kN>(b, sa, sb, xl, sums);
    } else {
      SuperBlockSums<kN>(b, sa, sb, xl, sums);
    }
    for (int t = 0; t < kN; ++t) {
      const VQ all = SubtractIntegerOffset<5>(sc16, sums[t], x[t].bsum16_8k + 16 * k);
      acc[kI][t] = hn::MulAdd(hn::Set(DQF(), d * x[t].scale8k[k]), hn::ConvertTo(DQF(), all), acc[kI][t]);
      if (spiky != 0) {
        const VQ rsum = SubtractIntegerOffset<5>(sc16, sums[kN + t], x[t].rbsum16_8k + 16 * k);
        acc[kI][t] = hn::MulAdd(hn::Set(DQF(), d * x[t].rscale8k[k]), hn::ConvertTo(DQF(), rsum), acc[kI][t]);
      }
    }
  }
};

// IQ4_XS: eight units of 32 per super-block, each an IQ4_NL block's nibbles
// (NibblePairs of qs[16j ..]) through the codebook; a = d (ls_j - 32),
// signed bytes as Q8_0's (c = -128 a on VNNI).
struct IQ4_XSInt8Kernel {
  // The a of super-block b's eight units.
  static HWY_INLINE void UnitScales(const BlockIQ4_XS& b, float* a) {
    const float d = LoadHalf(&b.d);
    for (int j = 0; j < 8; ++j) a[j] = d * static_cast<float>(iq4_xs_scale(j, b));
  }
  // Units 4h .. 4h + 3 of super-block b: a group of AccumulateGroup.
  static HWY_INLINE auto HalfUnits(const BlockIQ4_XS& b, int64_t h) {
    return [&b, h](int j, VBS* w) {
      VB nib[kBlockVectors];
      NibblePairs(b.qs + 16 * (4 * h + j), nib);
      for (size_t v = 0; v < kBlockVectors; ++v) w[v] = Codebook(nib[v]);
    };
  }
  // acc + the second term of spiky group g (half g % 2 of super-block g / 2).
  static HWY_NOINLINE VQF SpikyGroup(const BlockIQ4_XS* b, VQF acc, int64_t g, const Residuals& r) {
    HWY_ALIGN float a[8];
    UnitScales(b[g / 2], a);
    return AddResidualGroup<VBS>(HalfUnits(b[g / 2], g % 2), kX8Group * g, kX8Group, Coefficients4(a + 4 * (g % 2)),
                                 r, acc);
  }

  template <int kN>
  static HWY_INLINE void Dot(const uint8_t* row, int64_t cols, const float*, const XSums& xs, float* out) {
    const auto* b = reinterpret_cast<const BlockIQ4_XS*>(row);
    const auto x = Vectors<kN>(xs, cols);
    VQF acc[kN];
    for (int t = 0; t < kN; ++t) acc[t] = hn::Zero(DQF());
    for (int64_t k = 0; k < cols / kQK_K; ++k) {
      StreamStep<sizeof(BlockIQ4_XS)>(b + k);
      HWY_ALIGN float a[8];
      UnitScales(b[k], a);
      for (int h = 0; h < 2; ++h) {
        const VQF av = Coefficients4(a + 4 * h);
        AccumulateGroup<kN, VBS, kSignedOffset != 0.0f>(HalfUnits(b[k], h), 8 * k + 4 * h, kX8Group, av,
                                                        hn::Mul(av, hn::Set(DQF(), kSignedOffset)), x, acc, acc);
      }
    }
    const auto group = [b](VQF a, int64_t g, const Residuals& r) { return SpikyGroup(b, a, g, r); };
    for (int t = 0; t < kN; ++t) acc[t] = AddSpikyGroups(x[t], acc[t], group);
    for (int t = 0; t < kN; ++t) out[t] = hn::GetLane(hn::SumOfLanes(DQF(), acc[t]));
  }
};

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif  // !CK_HWY_PORTABLE_TARGET

#endif  // CK_KERNELS_GEMV_INT8_KQUANT_INL_H_
