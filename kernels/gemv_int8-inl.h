// Per-target decode GEMV of the block-quantized dtypes, with the
// activations rounded to int8 per 32 values as prefill's GEMM rounds them
// (QuantizeRowInt8, gemm_int8-inl.h), including its second pass over the
// rounding error of the spiky blocks. Included after gemv-inl.h by
// gemv_int8.cc and gemv_kquant.cc, once per Highway target. This file: the
// machinery and the 32-weight dtypes (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL);
// gemv_int8_kquant-inl.h: the K-quants and IQ4_XS.
//
// Why bytes: a byte product takes 32 weights per 256-bit instruction
// (vpdpbusd, or pmaddubsw + pmaddwd), twice what the int16 activations of
// sessions 2-8 took; decode of a model that fits in the cache is
// compute-bound, and on AVX2 int16 cost it 1.6-1.9x (docs/kernels.md).
//
// A row is cut into units of 32 weights, w = a * u + c per unit (u the
// unsigned bytes of decode_u8.h; Q6_K, Q2_K and Q3_K: int16 scales per 16
// weights multiply the byte pair sums, ScaledBytes). For vector t (x ~ q * s
// per 32 values):
//   y += a * s * sum(u * q) + c * (sum of the rounded x)
// and, in a spiky unit, a * s' * sum(u * q') for the rounded residual q'
// (its sum is in the unit's sum of x already). Four units are reduced
// together: their four int32 vectors become one vector of four unit sums
// (horizontal adds), converted and scaled by the four units' a * s in one
// go, so the float work per unit is a quarter of a conversion and two
// multiply-adds. Signed q (Q8_0, IQ4_NL, IQ4_XS): VNNI multiplies q + 128
// (c = -128 a), the pair-sum targets |q| by x with q's sign.

#if defined(CK_KERNELS_GEMV_INT8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMV_INT8_INL_H_
#undef CK_KERNELS_GEMV_INT8_INL_H_
#else
#define CK_KERNELS_GEMV_INT8_INL_H_
#endif

HWY_BEFORE_NAMESPACE();
namespace ck::qgemv::HWY_NAMESPACE {

// Blocks reduced and scaled together (XSums::kX8Pad pads the per-block
// arrays to a multiple of it).
constexpr int64_t kX8Group = 4;
static_assert(kX8Group == kX8Pad, "the activation arrays are padded to whole groups");

template <class Block>
struct Int8BlockTraits {
  template <class... B>
  static constexpr bool kIs = (std::is_same_v<Block, B> || ...);
  static constexpr bool kHasMin = kIs<BlockQ4_1, BlockQ5_1, BlockQ5_1L>;
  static constexpr bool kHighBit = kIs<BlockQ5_0, BlockQ5_1, BlockQ5_0L, BlockQ5_1L>;
  static constexpr bool kHighBitLanes = kIs<BlockQ5_0L, BlockQ5_1L>;  // qh transposed (unit_lanes.h)
  static constexpr bool kCodebook = kIs<BlockIQ4_NL>;
  static constexpr bool kSigned = kCodebook || kIs<BlockQ8_0>;
};

#if CK_HWY_PORTABLE_TARGET

// The portable target: each block through its decode_u8 form (units of
// kUnit weights, 32 or Q6_K's 16, with their own a and c), integer sums
// lane by lane, with the activations of the dtype's gemv_x_block.
template <class Block>
struct Int8Kernel {
  template <class... B>
  static constexpr bool kIs = (std::is_same_v<Block, B> || ...);
  static constexpr int kWeights =
      kIs<BlockQ2_K, BlockQ3_K, BlockQ4_K, BlockQ5_K, BlockQ4_KL, BlockQ5_KL, BlockQ6_K, BlockQ6_KL, BlockIQ4_XS> ? kQK_K
                                                                                                        : kQK;
  static constexpr int kUnit = kIs<BlockQ2_K, BlockQ3_K, BlockQ6_K, BlockQ6_KL> ? 16 : kQK;
  static constexpr bool kPer256 = kWeights == kQK_K && !kIs<BlockIQ4_XS>;
  template <int kN>
  static void Dot(const uint8_t* row, int64_t cols, const float*, const XSums& xs, float* out) {
    const auto* b = reinterpret_cast<const Block*>(row);
    const DecodeU8Fn decode = DecodeOf();
    const auto x = Vectors<kN>(xs, cols);
    for (int t = 0; t < kN; ++t) out[t] = 0.0f;
    for (int64_t k = 0; k < cols / kWeights; ++k) {
      StreamStep<sizeof(Block)>(b + k);
      uint8_t u[kWeights];
      float a[kWeights / kUnit], c[kWeights / kUnit];
      decode(b + k, kWeights, u, a, c);
      for (int j = 0; j < kWeights / kUnit; ++j) {
        const int64_t first = k * kWeights + j * kUnit;  // first weight
        const int64_t block = kPer256 ? first / kQK_K : first / kQK;  // its activation scale
        for (int t = 0; t < kN; ++t) {
          const XSums& v = x[t];
          const float* sums = kUnit == 16 ? (kPer256 ? v.sum16_8k : v.sum16_8) : (kPer256 ? v.sum32_8k : v.sum8);
          const float scale = (kPer256 ? v.scale8k : v.scale8)[block];
          const float rscale = (kPer256 ? v.rscale8k : v.rscale8)[block];
          out[t] += a[j] * scale * static_cast<float>(Products(u + j * kUnit, (kPer256 ? v.q8k : v.q8) + first)) +
                    c[j] * sums[first / kUnit];
          if (rscale != 0.0f) {
            out[t] += a[j] * rscale * static_cast<float>(Products(u + j * kUnit, (kPer256 ? v.r8k : v.r8) + first));
          }
        }
      }
    }
  }
  static int32_t Products(const uint8_t* u, const int8_t* q) {
    int32_t s = 0;
    for (int i = 0; i < kUnit; ++i) s += int32_t{u[i]} * q[i];
    return s;
  }
  static DecodeU8Fn DecodeOf() {
    if constexpr (kIs<BlockQ8_0>) return decode_u8_q8_0;
    if constexpr (kIs<BlockQ4_0>) return decode_u8_q4_0;
    if constexpr (kIs<BlockQ4_1>) return decode_u8_q4_1;
    if constexpr (kIs<BlockQ5_0>) return decode_u8_q5_0;
    if constexpr (kIs<BlockQ5_1>) return decode_u8_q5_1;
    if constexpr (kIs<BlockQ5_0L>) return decode_u8_q5_0l;
    if constexpr (kIs<BlockQ5_1L>) return decode_u8_q5_1l;
    if constexpr (kIs<BlockQ2_K>) return decode_u8_q2_k;
    if constexpr (kIs<BlockQ3_K>) return decode_u8_q3_k;
    if constexpr (kIs<BlockQ4_K>) return decode_u8_q4_k;
    if constexpr (kIs<BlockQ5_K>) return decode_u8_q5_k;
    if constexpr (kIs<BlockQ4_KL>) return decode_u8_q4_kl;
    if constexpr (kIs<BlockQ5_KL>) return decode_u8_q5_kl;
    if constexpr (kIs<BlockQ6_K>) return decode_u8_q6_k;
    if constexpr (kIs<BlockQ6_KL>) return decode_u8_q6_kl;
    if constexpr (kIs<BlockIQ4_XS>) return decode_u8_iq4_xs;
    return decode_u8_iq4_nl;
  }
};
// The names of the vector targets' kernels (gemv_int8_kquant-inl.h).
template <class Block>
using Q45_KInt8Kernel = Int8Kernel<Block>;
template <class Block>
using Q45_KLanesKernel = Int8Kernel<Block>;
template <class Block>
using Scaled16Kernel = Int8Kernel<Block>;
using Q6_KLanesKernel = Int8Kernel<BlockQ6_KL>;
using IQ4_XSInt8Kernel = Int8Kernel<BlockIQ4_XS>;

#else

// One block of 32 weights is one vector of 32 bytes (AVX2 and up) or two of
// 16 (SSE4, SSSE3); int32 sums and their float forms have 8 or 4 lanes.
using DB = hn::CappedTag<uint8_t, 32>;
using DBS = hn::RebindToSigned<DB>;
using DQ = hn::Repartition<int32_t, DB>;
using DQF = hn::Rebind<float, DQ>;
using VB = hn::Vec<DB>;
using VBS = hn::Vec<DBS>;
using VQ = hn::Vec<DQ>;
using VQF = hn::Vec<DQF>;
constexpr size_t kByteLanes = hn::MaxLanes(DB());
constexpr size_t kBlockVectors = kQK / kByteLanes;
constexpr bool kWide = kByteLanes == 32;  // 256-bit vectors

#if HWY_TARGET != HWY_AVX3_DL
// acc + the int32 sums of four adjacent products u * x: pmaddubsw (int16
// pair sums, which cannot saturate: u <= 31, or |q| <= 128 with the sign
// moved onto x) and pmaddwd by ones.
HWY_INLINE VQ AddQuads(VQ acc, VB u, VBS x) {
#if HWY_TARGET <= HWY_AVX2
  const __m256i pairs = _mm256_maddubs_epi16(u.raw, x.raw);
  return VQ{_mm256_add_epi32(acc.raw, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))};
#else
  const __m128i pairs = _mm_maddubs_epi16(u.raw, x.raw);
  return VQ{_mm_add_epi32(acc.raw, _mm_madd_epi16(pairs, _mm_set1_epi16(1)))};
#endif
}
#endif

// acc + the sums of four adjacent products of the unsigned bytes u and the
// signed bytes at x.
HWY_INLINE VQ DotU8(VQ acc, VB u, const int8_t* x) {
#if HWY_TARGET == HWY_AVX3_DL
  // As in gemm_int8-inl.h: no Highway op and no inlinable intrinsic for
  // vpdpbusd on this target, so asm, x read from memory.
  struct X { int8_t v[kByteLanes]; };
  auto raw = acc.raw;
  asm("vpdpbusd %2, %1, %0" : "+v"(raw) : "v"(u.raw), "m"(*reinterpret_cast<const X*>(x)));
  return VQ{raw};
#else
  return AddQuads(acc, u, hn::LoadU(DBS(), x));
#endif
}

// The same for signed weight bytes q: VNNI multiplies q + 128 (the caller's
// offset is -128 d, kSignedOffset), the pair-sum targets |q| by x with q's
// sign.
HWY_INLINE VQ DotI8(VQ acc, VBS q, const int8_t* x) {
#if HWY_TARGET == HWY_AVX3_DL
  return DotU8(acc, hn::BitCast(DB(), hn::Xor(q, hn::Set(DBS(), -128))), x);
#elif HWY_TARGET <= HWY_AVX2
  const __m256i xv = hn::LoadU(DBS(), x).raw;
  return AddQuads(acc, VB{_mm256_abs_epi8(q.raw)}, VBS{_mm256_sign_epi8(xv, q.raw)});
#else
  const __m128i xv = hn::LoadU(DBS(), x).raw;
  return AddQuads(acc, VB{_mm_abs_epi8(q.raw)}, VBS{_mm_sign_epi8(xv, q.raw)});
#endif
}
constexpr float kSignedOffset = HWY_TARGET == HWY_AVX3_DL ? -128.0f : 0.0f;

// 16-bit lanes, for the scales of Q6_K's sub-blocks of 16 weights.
using DS16 = hn::Repartition<int16_t, DB>;
using VS16 = hn::Vec<DS16>;

// acc + the sums of four adjacent products u * x, each pair of products
// multiplied by its int16 lane of `scale` first: pmaddubsw, then pmaddwd by
// the scales instead of by ones, on every target (vpdpbusd has no per-lane
// scale). No saturation: |pair| <= 2 * 63 * 127 and |scale| <= 128.
HWY_INLINE VQ DotU8Scaled(VQ acc, VB u, const int8_t* x, VS16 scale) {
  const VBS xv = hn::LoadU(DBS(), x);
#if HWY_TARGET <= HWY_AVX2
  const __m256i pairs = _mm256_maddubs_epi16(u.raw, xv.raw);
  return VQ{_mm256_add_epi32(acc.raw, _mm256_madd_epi16(pairs, scale.raw))};
#else
  const __m128i pairs = _mm_maddubs_epi16(u.raw, xv.raw);
  return VQ{_mm_add_epi32(acc.raw, _mm_madd_epi16(pairs, scale.raw))};
#endif
}

// [a, b] pairwise: the sums of adjacent lanes of a, then of b, per 128 bits.
HWY_INLINE VQ AddPairs(VQ a, VQ b) {
#if HWY_TARGET <= HWY_AVX2
  return VQ{_mm256_hadd_epi32(a.raw, b.raw)};
#else
  return VQ{_mm_hadd_epi32(a.raw, b.raw)};
#endif
}

// The coefficients of four blocks in the lanes that hold their sums after
// GroupSums: lanes 0-3 and, on 256-bit vectors, 4-7 again
// (each half holds a partial sum of every block).
HWY_INLINE VQF Coefficients4(const float* p) {
#if HWY_TARGET <= HWY_AVX2
  return VQF{_mm256_broadcast_ps(reinterpret_cast<const __m128*>(p))};
#else
  return hn::LoadU(DQF(), p);
#endif
}
// Four values that must count once: lanes 0-3, zeros above.
HWY_INLINE VQF Once4(const float* p) {
#if HWY_TARGET <= HWY_AVX2
  return hn::ZeroExtendVector(DQF(), hn::LoadU(hn::Full128<float>(), p));
#else
  return hn::LoadU(DQF(), p);
#endif
}

// The int32 sums of one unit of 32 weights (kBlockVectors byte vectors,
// unsigned VB or signed VBS) with the activation bytes at x.
template <class W>
HWY_INLINE VQ UnitSum(const W* w, const int8_t* x) {
  VQ s = hn::Zero(DQ());
  for (size_t v = 0; v < kBlockVectors; ++v) {
    if constexpr (std::is_same_v<W, VBS>) {
      s = DotI8(s, w[v], x + v * kByteLanes);
    } else {
      s = DotU8(s, w[v], x + v * kByteLanes);
    }
  }
  return s;
}

// One vector of a unit whose sub-blocks of 16 weights have int16 scales
// (Q6_K): the bytes and, per int16 lane, the scale of its sub-block.
struct ScaledBytes {
  VB u;
  VS16 scale;
};
HWY_INLINE VQ UnitSum(const ScaledBytes* w, const int8_t* x, VQ s = hn::Zero(DQ())) {
  for (size_t v = 0; v < kBlockVectors; ++v) s = DotU8Scaled(s, w[v].u, x + v * kByteLanes, w[v].scale);
  return s;
}

// s[t] = the sums of unit j (unit(j, w) gives its weights) with the
// activations xq[t] + 32 j; zero if j >= valid.
template <int kN, class W, class UnitFn>
HWY_INLINE void UnitSums(const UnitFn& unit, int j, int64_t valid, const int8_t* const* xq, VQ* s) {
  if (j >= valid) {
    for (int t = 0; t < kN; ++t) s[t] = hn::Zero(DQ());
    return;
  }
  W w[kBlockVectors];
  unit(j, w);
  for (int t = 0; t < kN; ++t) s[t] = UnitSum(w, xq[t] + j * kQK);
}

// The four-unit reduction below, in two steps: per 128 bits, [a0 + a2,
// b0 + b2, a1 + a3, b1 + b3] of two units' lanes, then of two such, the
// sums of the four units' four lanes [a, b, c, d]. The same sums as two
// rounds of horizontal adds (AddPairs), from single-op unpacks: vphaddd is
// three ops, and Zen 3 ran one every two cycles against two unpacks a
// cycle. (The 1-row Q8_0 loop, bound by its multiplies, took as long
// either way: docs/kernels.md, session 26.)
// (For int32 sums, and for the float totals of Totals4.)
template <class D>
HWY_INLINE hn::Vec<D> InterleavedSums(D d, hn::Vec<D> a, hn::Vec<D> b) {
  return hn::Add(hn::InterleaveLower(d, a, b), hn::InterleaveUpper(d, a, b));
}
template <class D>
HWY_INLINE hn::Vec<D> QuadSums(D d, hn::Vec<D> ab, hn::Vec<D> cd) {
  const hn::Repartition<uint64_t, D> d64;
  const auto ab64 = hn::BitCast(d64, ab), cd64 = hn::BitCast(d64, cd);
  return hn::Add(hn::BitCast(d, hn::InterleaveLower(d64, ab64, cd64)), hn::BitCast(d, hn::InterleaveUpper(d64, ab64, cd64)));
}

// sums[t] = the sums of four units (the first `valid` of them) with the
// activations xq[t], reduced to one lane per unit (Coefficients4's layout).
// Straight-line code: as a loop over the units GCC kept the loop and its
// branches, and decode was 20 % slower than with int16 activations.
template <int kN, class W, class UnitFn>
HWY_INLINE void GroupSums(const UnitFn& unit, int64_t valid, const int8_t* const* xq, VQ* sums) {
  static_assert(kX8Group == 4, "two pairs");
  VQ s0[kN], s1[kN], first[kN];
  UnitSums<kN, W>(unit, 0, valid, xq, s0);
  UnitSums<kN, W>(unit, 1, valid, xq, s1);
  for (int t = 0; t < kN; ++t) first[t] = InterleavedSums(DQ(), s0[t], s1[t]);
  UnitSums<kN, W>(unit, 2, valid, xq, s0);
  UnitSums<kN, W>(unit, 3, valid, xq, s1);
  for (int t = 0; t < kN; ++t) sums[t] = QuadSums(DQ(), first[t], InterleavedSums(DQ(), s0[t], s1[t]));
}

// acc + sums * (a * s): a * s waits on no product, so the chain from the
// byte products to the accumulator has one multiply-add and no multiply
// (docs/kernels.md, session 14).
HWY_INLINE VQF AddScaled(VQF acc, VQ sums, VQF a, VQF s) {
  return hn::MulAdd(hn::ConvertTo(DQF(), sums), hn::Mul(a, s), acc);
}

// acc[t] += a * s * sum(u * q) and off[t] += c * (sum of x) for the four
// units that start at unit k0 of the row (a, c in Coefficients4's layout;
// c and off unused unless kHasOffset). The offset term has an accumulator
// of its own so that a vector's two multiply-adds per group do not wait on
// each other (two 4-cycle latencies on Zen 3, in a group of ~15 cycles).
// The spiky units' second term is AddSpikyGroups'.
template <int kN, class W, bool kHasOffset, class UnitFn>
HWY_INLINE void AccumulateGroup(const UnitFn& unit, int64_t k0, int64_t valid, VQF a, VQF c,
                                const std::array<XSums, kN>& x, VQF* acc, VQF* off) {
  const int8_t* xq[kN];
  for (int t = 0; t < kN; ++t) xq[t] = x[t].q8 + k0 * kQK;
  VQ sums[kN];
  GroupSums<kN, W>(unit, valid, xq, sums);
  for (int t = 0; t < kN; ++t) {
    acc[t] = AddScaled(acc[t], sums[t], a, Coefficients4(x[t].scale8 + k0));
    if constexpr (kHasOffset) off[t] = hn::MulAdd(c, Once4(x[t].sum8 + k0), off[t]);
  }
}

// The rounding errors of a vector's spiky blocks (XSums' r8, r8p and their
// scales), as the out-of-line group functions take them: the XSums of the
// vector, passed by reference, would be written out to memory for every
// row (20 pointers), which cost the kernels 3-12 % in cache.
struct Residuals {
  const int8_t* r8;
  const float* rscale8;
  const int8_t* r8p;
  const float* rscale8p;
};

// acc + a * s' * sum(u * q') for the four units from unit k0, the
// rounding errors q' * s' of a spiky group's activations.
template <class W, class UnitFn>
HWY_INLINE VQF AddResidualGroup(const UnitFn& unit, int64_t k0, int64_t valid, VQF a, const Residuals& r, VQF acc) {
  const int8_t* rq = r.r8 + k0 * kQK;
  VQ sum;
  GroupSums<1, W>(unit, valid, &rq, &sum);
  return AddScaled(acc, sum, a, Coefficients4(r.rscale8 + k0));
}

// acc + group(.., g, residuals of vector x) for x's spiky groups g, in a
// loop of its own, so that the main loop has no test per group: with one,
// the Q4_0 and Q4_1 kernels ran 3-10 % slower in cache (docs/kernels.md,
// session 15). The group function is out of line: spiky groups are rare,
// and the sanitizer build's compile would carry a copy per inlined group.
// By value: with the accumulators passed by pointer GCC kept them in
// memory, stored at every group of the main loop.
template <class GroupFn>
HWY_INLINE VQF AddSpikyGroups(const XSums& x, VQF acc, const GroupFn& group) {
  for (int32_t i = 0; i < *x.n_spiky_groups; ++i) {
    acc = group(acc, x.spiky_groups[i], Residuals{x.r8, x.rscale8, x.r8p, x.rscale8p});
  }
  return acc;
}

// The 32 bytes at p as nibbles: the low ones, or the high ones.
template <bool kHigh>
HWY_INLINE void Nibbles(const uint8_t* p, VB* w) {
  for (size_t v = 0; v < kBlockVectors; ++v) {
    VB bytes = hn::LoadU(DB(), p + v * kByteLanes);
    if constexpr (kHigh) {
      // The 16-bit shift brings the next byte's low bits into the high
      // nibble; the mask drops them.
      const hn::Repartition<uint16_t, DB> dw;
      bytes = hn::BitCast(DB(), hn::ShiftRight<4>(hn::BitCast(dw, bytes)));
    }
    w[v] = hn::And(bytes, hn::Set(DB(), 0xF));
  }
}

// 32 weights from 16 bytes: value j the low nibble of qs[j], value j + 16
// its high nibble (Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL and IQ4_XS's sub-blocks).
HWY_INLINE void NibblePairs(const uint8_t* qs, VB* nib) {
  const hn::CappedTag<uint8_t, 16> d16;
  const hn::Repartition<uint16_t, decltype(d16)> dw;
  const auto q = hn::LoadU(d16, qs);
  const auto high = hn::BitCast(d16, hn::ShiftRight<4>(hn::BitCast(dw, q)));  // masked below
#if HWY_TARGET <= HWY_AVX2
  nib[0] = hn::Combine(DB(), high, q);
#else
  nib[0] = q;
  nib[1] = high;
#endif
  for (size_t v = 0; v < kBlockVectors; ++v) nib[v] = hn::And(nib[v], hn::Set(DB(), 0xF));
}

// Bit 4 of each weight of vector v of a block in NibblePairs' layout, from
// Q5_0_L's or Q5_1_L's transposed qh (unit_lanes.h): once qh is in every
// 32-bit lane, the four weights of lane g (0..7 over the block) have their
// bits at bit g of the lane's four bytes, so a shift per lane moves them to
// bit 4. The carries between bytes land below
// bit 4 (left shifts of at most 4) or above it (right shifts of at most 3).
HWY_INLINE VB HighBitLanes(const uint8_t* qh, size_t v) {
  const hn::Repartition<uint32_t, DB> d32;
  alignas(32) static constexpr uint32_t kLeft[8] = {4, 3, 2, 1, 0, 0, 0, 0}, kRight[8] = {0, 0, 0, 0, 0, 1, 2, 3};
  uint32_t bits;
  std::memcpy(&bits, qh, 4);
  const size_t g = v * hn::MaxLanes(d32);
  const auto moved = (hn::Set(d32, bits) << hn::LoadU(d32, kLeft + g)) >> hn::LoadU(d32, kRight + g);
  return hn::And(hn::BitCast(DB(), moved), hn::Set(DB(), 0x10));
}

// IQ4_NL's codebook value of each nibble (a byte shuffle).
HWY_INLINE VBS Codebook(VB nibbles) {
  return hn::TableLookupBytes(hn::LoadDup128(DBS(), kIQ4Values), hn::BitCast(DBS(), nibbles));
}

// [A, B, C, D]: the sums of the lanes of a, b, c and d, each by the same
// additions in the same order whichever of the four places it has.
HWY_INLINE hn::Vec<hn::Full128<float>> Totals4(VQF a, VQF b, VQF c, VQF d) {
  const VQF abcd = QuadSums(DQF(), InterleavedSums(DQF(), a, b), InterleavedSums(DQF(), c, d));
#if HWY_TARGET <= HWY_AVX2
  return hn::Add(hn::LowerHalf(abcd), hn::UpperHalf(hn::Full128<float>(), abcd));
#else
  return abcd;
#endif
}

// out[j] = the sum of the lanes of v[j], j < kCount, four at a time.
template <int kCount>
HWY_INLINE void StoreTotals(const VQF* v, float* out) {
  const hn::Full128<float> d4;
  for (int j = 0; j < kCount; j += 4) {
    const auto totals = Totals4(v[j], v[std::min(j + 1, kCount - 1)], v[std::min(j + 2, kCount - 1)],
                                v[std::min(j + 3, kCount - 1)]);
    if (j + 4 <= kCount) {
      hn::StoreU(totals, d4, out + j);
    } else {
      HWY_ALIGN float lanes[4];
      hn::Store(totals, d4, lanes);
      for (int k = j; k < kCount; ++k) out[k] = lanes[k - j];
    }
  }
}

template <class Block>
struct Int8Kernel {
  using T = Int8BlockTraits<Block>;
  using W = std::conditional_t<T::kSigned, VBS, VB>;
  // c = kOffset * d (Q4_0, Q5_0; Q8_0 and IQ4_NL on VNNI), or the block's m.
  static constexpr float kOffset = T::kSigned ? kSignedOffset
                                   : T::template kIs<BlockQ4_0> ? -8.0f
                                   : T::template kIs<BlockQ5_0, BlockQ5_0L> ? -16.0f
                                                                      : 0.0f;
  static constexpr bool kHasOffset = T::kHasMin || kOffset != 0.0f;

  // The 32 weights of a block (NibblePairs; the 5-bit types add bit j of
  // qh as bit 4 of value j).
  static HWY_INLINE void Weights(const Block& b, W* w) {
    if constexpr (std::is_same_v<Block, BlockQ8_0>) {
      for (size_t v = 0; v < kBlockVectors; ++v) {
        w[v] = hn::LoadU(DBS(), b.qs + v * kByteLanes);
#if HWY_TARGET <= HWY_AVX2
        // In a register: the pair-sum targets read q twice (|q| and the
        // sign for x), and GCC folded the load into both, two vector loads
        // per block where Zen 3 issues two a cycle (llvm-mca: the loop's
        // bound, docs/benchmarks.md "Session 11").
        asm("" : "+x"(w[v].raw));
#endif
      }
    } else {
      VB nib[kBlockVectors];
      NibblePairs(b.qs, nib);
      for (size_t v = 0; v < kBlockVectors; ++v) {
        if constexpr (T::kHighBitLanes) {
          nib[v] = hn::Or(nib[v], HighBitLanes(b.qh, v));
        } else if constexpr (T::kHighBit) {
          const auto bits = hn::LoadMaskBits(DB(), b.qh + v * kByteLanes / 8);
          nib[v] = hn::Or(nib[v], hn::IfThenElseZero(bits, hn::Set(DB(), 16)));
        }
        if constexpr (T::kCodebook) {
          w[v] = Codebook(nib[v]);
        } else {
          w[v] = nib[v];
        }
      }
    }
  }

  // d (and c) of blocks b[0..valid) in Coefficients4's layout, or in the
  // pair layout (blocks 0, 0, 2, 2, 1, 1, 3, 3); zero for the missing
  // ones. The fp16 d (and m) of four blocks are gathered into one register
  // and converted together.
  template <bool kPairLayout = false>
  static HWY_INLINE void Scales(const Block* b, int64_t valid, VQF& d, VQF& c) {
#if HWY_TARGET <= HWY_AVX2
    if constexpr (!kPairLayout && !T::kHasMin) {
      // The four fp16 d side by side in a general register, moved to a
      // vector register and converted: 3 vector ops where the gather by
      // inserts and the byte shuffle below take 6, on the pipes that the
      // byte products fill (Q8_0 1024 x 2048 in cache 87 -> 82 us on Zen 3;
      // ik_llama.cpp gathers its Q8_0 scales so too; docs/kernels.md,
      // session 27). For the pair layout, and d with m, the shuffle stays:
      // this way Q4_0 and Q4_1 ran 6-35 % slower.
      uint64_t h[kX8Group] = {};
      for (int j = 0; j < kX8Group; ++j) {
        if (j < valid) h[j] = b[j].d;
      }
      d = VQF{_mm256_cvtph_ps(_mm_set1_epi64x(static_cast<int64_t>(h[0] | h[1] << 16 | h[2] << 32 | h[3] << 48)))};
      c = hn::Mul(d, hn::Set(DQF(), kOffset));
      return;
    }
    // The first four bytes of every block: d and m, or d and two bytes that
    // the shuffle below leaves out.
    uint32_t dm[kX8Group] = {};
    for (int j = 0; j < kX8Group; ++j) {
      if (j < valid) std::memcpy(&dm[j], &b[j].d, 4);
    }
    const __m128i packed = _mm_set_epi32(static_cast<int>(dm[3]), static_cast<int>(dm[2]), static_cast<int>(dm[1]),
                                         static_cast<int>(dm[0]));
    // A byte shuffle puts the d (or m) of each lane's block in the lane's
    // half, and one conversion of four halves makes them floats: three ops
    // (two with no m) where converting all eight halves and permuting the
    // lanes took four (six), each permute (vpermps) two ops and 7 cycles
    // of latency on the way to the group's multiply-add. Bytes 4 j, 4 j + 1
    // hold block j's d, 4 j + 2, 4 j + 3 its m.
    alignas(16) static constexpr uint8_t kHalves[2][2][16] = {
        {{0, 1, 4, 5, 8, 9, 12, 13, 0, 1, 4, 5, 8, 9, 12, 13}, {2, 3, 6, 7, 10, 11, 14, 15, 2, 3, 6, 7, 10, 11, 14, 15}},
        {{0, 1, 0, 1, 8, 9, 8, 9, 4, 5, 4, 5, 12, 13, 12, 13}, {2, 3, 2, 3, 10, 11, 10, 11, 6, 7, 6, 7, 14, 15, 14, 15}}};
    const hn::Rebind<hwy::float16_t, DQF> dh;
    auto convert = [&](const uint8_t* table) {
      const __m128i picked = _mm_shuffle_epi8(packed, _mm_load_si128(reinterpret_cast<const __m128i*>(table)));
      return hn::PromoteTo(DQF(), hn::Vec<decltype(dh)>{picked});
    };
    d = convert(kHalves[kPairLayout][0]);
    if constexpr (T::kHasMin) c = convert(kHalves[kPairLayout][1]);
#else
    HWY_ALIGN float ds[kX8Group] = {}, ms[kX8Group] = {};
    for (int j = 0; j < valid; ++j) {
      ds[j] = LoadHalf(&b[j].d);
      if constexpr (T::kHasMin) ms[j] = LoadHalf(&b[j].m);
    }
    d = hn::Load(DQF(), ds);
    if constexpr (T::kHasMin) c = hn::Load(DQF(), ms);
#endif
    if constexpr (!T::kHasMin) c = hn::Mul(d, hn::Set(DQF(), kOffset));
  }

  // The weights of block k0 + j, for the group functions.
  static HWY_INLINE auto UnitsFrom(const Block* b, int64_t k0) {
    return [b, k0](int j, W* w) { Weights(b[k0 + j], w); };
  }

  // Blocks k0 .. k0 + valid (at most four), inlined with valid a constant
  // where Dot knows it (no branch per block): 4 for the whole groups, and
  // for the unpaired dtypes 1, 2 or 3 for a row's last blocks; the paired
  // ones leave only a rare odd rest to it (valid at run time).
  template <int kN>
  static HWY_INLINE void Group(const Block* b, int64_t k0, int64_t valid, const std::array<XSums, kN>& x,
                               VQF* acc, VQF* off) {
    VQF d, c;
    Scales(b + k0, valid, d, c);
    AccumulateGroup<kN, W, kHasOffset>(UnitsFrom(b, k0), k0, valid, d, c, x, acc, off);
  }

#if HWY_TARGET <= HWY_AVX2
  // The pair layout (Q4_0, Q4_1, Q5_0, Q5_1 on 256-bit vectors): one vector
  // holds the low 16 weights of two blocks, another their high 16, so one
  // load and one insert unpack two blocks, and a group of four blocks ends
  // in one horizontal add instead of three: its sums are left in lanes of
  // blocks 0, 0, 2, 2, 1, 1, 3, 3, which the pair layout's coefficients
  // match (XSums). The unsigned weights (u <= 31) let the int16 pair sums of
  // the low and high halves add before one pmaddwd: 2 * 2 * 31 * 127 = 15748
  // fits.
  static constexpr bool kPaired = !T::kSigned;

  // Blocks a and b as the low-half and high-half vectors of the pair layout.
  static HWY_INLINE void PairWeights(const Block& a, const Block& b, VB* w) {
    const hn::CappedTag<uint8_t, 16> d16;
    const hn::Repartition<uint16_t, DB> dw;
    const VB q = hn::Combine(DB(), hn::LoadU(d16, b.qs), hn::LoadU(d16, a.qs));
    w[0] = hn::And(q, hn::Set(DB(), 0xF));
    w[1] = hn::And(hn::BitCast(DB(), hn::ShiftRight<4>(hn::BitCast(dw, q))), hn::Set(DB(), 0xF));
    if constexpr (T::kHighBit) {
      // a's qh in every 32-bit lane of the low 128 bits and b's in the high
      // (two broadcast loads, no trip through a general register).
      uint32_t ha, hb;
      std::memcpy(&ha, a.qh, 4);
      std::memcpy(&hb, b.qh, 4);
      const VB both{_mm256_blend_epi32(_mm256_set1_epi32(static_cast<int>(ha)), _mm256_set1_epi32(static_cast<int>(hb)),
                                       0xF0)};
      if constexpr (T::kHighBitLanes) {
        // As HighBitLanes, both halves at once: 3 ops a vector where the
        // bit test below takes 5 (docs/kernels.md, "Session 37").
        const hn::Repartition<uint32_t, DB> d32;
        alignas(32) static constexpr uint32_t kLeft[8] = {4, 3, 2, 1, 4, 3, 2, 1}, kRight[8] = {0, 1, 2, 3, 0, 1, 2, 3};
        const auto h = hn::BitCast(d32, both);
        w[0] = hn::Or(w[0], hn::And(hn::BitCast(DB(), h << hn::Load(d32, kLeft)), hn::Set(DB(), 0x10)));
        w[1] = hn::Or(w[1], hn::And(hn::BitCast(DB(), h >> hn::Load(d32, kRight)), hn::Set(DB(), 0x10)));
        return;
      }
      // Bit j of qh is weight j's: a byte shuffle gives each weight the qh
      // byte that holds its bit (the low half: bytes 0, 1; the high half:
      // 2, 3), and a test of that bit sets 16.
      alignas(16) static constexpr uint8_t kSource[2][16] = {{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},
                                                             {2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3}};
      alignas(16) static constexpr uint8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
      const VB bit = hn::LoadDup128(DB(), kBit);
      for (int h = 0; h < 2; ++h) {
        const VB source = hn::TableLookupBytes(both, hn::LoadDup128(DB(), kSource[h]));
        const auto set = hn::Eq(hn::And(source, bit), bit);
        w[h] = hn::Or(w[h], hn::IfThenElseZero(set, hn::Set(DB(), 16)));
      }
    }
  }

  // The int32 sums of a group's first kPairs pairs w[0 .. 2 kPairs) with
  // its activation bytes x in the pair layout (64 per pair).
  template <int kPairs>
  static HWY_INLINE VQ PairedSums(const VB* w, const int8_t* x) {
    VQ pair[2] = {hn::Zero(DQ()), hn::Zero(DQ())};
    for (int p = 0; p < kPairs; ++p) {
      const VB lo = w[2 * p], hi = w[2 * p + 1];
      const int8_t* xp = x + 64 * p;
#if HWY_TARGET == HWY_AVX3_DL
      pair[p] = DotU8(DotU8(hn::Zero(DQ()), lo, xp), hi, xp + kByteLanes);
#else
      const __m256i sum16 = _mm256_add_epi16(_mm256_maddubs_epi16(lo.raw, hn::LoadU(DBS(), xp).raw),
                                             _mm256_maddubs_epi16(hi.raw, hn::LoadU(DBS(), xp + kByteLanes).raw));
      pair[p] = VQ{_mm256_madd_epi16(sum16, _mm256_set1_epi16(1))};
#endif
    }
    return AddPairs(pair[0], pair[1]);
  }

  // The first kPairs pairs of the group of blocks from k0, in the pair
  // layout: the whole group, or a row's last two blocks (XSums lays them
  // out too). Through the generic Group, those two cost SmolLM2's rows of
  // 18 blocks more than two whole groups (docs/kernels.md, session 14).
  template <int kN, int kPairs>
  static HWY_INLINE void PairedGroup(const Block* b, int64_t k0, const std::array<XSums, kN>& x, VQF* acc,
                                     VQF* off) {
    VQF d, c;
    Scales<true>(b + k0, 2 * kPairs, d, c);
    VB w[2 * kPairs];
    for (int p = 0; p < kPairs; ++p) PairWeights(b[k0 + 2 * p], b[k0 + 2 * p + 1], w + 2 * p);
    for (int t = 0; t < kN; ++t) {
      const VQ sums = PairedSums<kPairs>(w, x[t].q8p + k0 * kQK);
      acc[t] = AddScaled(acc[t], sums, d, hn::LoadU(DQF(), x[t].scale8p + 2 * k0));
      if constexpr (kHasOffset) off[t] = hn::MulAdd(c, hn::LoadU(DQF(), x[t].sum8p + 2 * k0), off[t]);
    }
  }
#else
  static constexpr bool kPaired = false;
#endif

  // acc + the second term of spiky group g of a row of nb blocks
  // (AddSpikyGroups), in the layout Dot's loop gave the group.
  static HWY_NOINLINE VQF SpikyGroup(const Block* b, int64_t nb, VQF acc, int64_t g, const Residuals& r) {
    const int64_t k0 = g * kX8Group, valid = std::min(kX8Group, nb - k0);
    VQF d, c;
#if HWY_TARGET <= HWY_AVX2
    if constexpr (kPaired) {
      if (valid == 4 || valid == 2) {
        Scales<true>(b + k0, valid, d, c);
        VB w[4];
        for (int64_t p = 0; p < valid / 2; ++p) PairWeights(b[k0 + 2 * p], b[k0 + 2 * p + 1], w + 2 * p);
        const int8_t* rq = r.r8p + k0 * kQK;
        const VQ sums = valid == 4 ? PairedSums<2>(w, rq) : PairedSums<1>(w, rq);
        return AddScaled(acc, sums, d, hn::LoadU(DQF(), r.rscale8p + 2 * k0));
      }
    }
#endif
    Scales(b + k0, valid, d, c);
    return AddResidualGroup<W>(UnitsFrom(b, k0), k0, valid, d, r, acc);
  }

  // acc[t] (and off[t]) + the products of blocks k0 .. nb, a row's last
  // ones after its whole groups, with vector t.
  template <int kN>
  static HWY_INLINE void LastBlocks(const Block* b, int64_t k0, int64_t nb, const std::array<XSums, kN>& x, VQF* acc,
                                    VQF* off) {
    if constexpr (kPaired) {
      // Only a last pair: the generic group reads its activations four
      // blocks at a time from a multiple of four (three or one blocks).
      if (nb - k0 == 2) {
        PairedGroup<kN, 1>(b, k0, x, acc, off);
        k0 += 2;
      }
      if (k0 < nb) Group<kN>(b, k0, nb - k0, x, acc, off);
    } else {
      // The last blocks with their count a constant in each copy, so that
      // no branch per block remains (SmolLM2's rows end with two).
      switch (nb - k0) {
        case 1:
          Group<kN>(b, k0, 1, x, acc, off);
          break;
        case 2:
          Group<kN>(b, k0, 2, x, acc, off);
          break;
        case 3:
          Group<kN>(b, k0, 3, x, acc, off);
          break;
      }
    }
  }

  // The start of row b (the second terms of its spiky groups, whose
  // out-of-line calls then find no other row's accumulators live), its
  // whole groups from block k0 and its end, for RowsDot.
  template <int kN>
  static HWY_INLINE void StartRow(const Block* b, int64_t nb, const std::array<XSums, kN>& x, VQF* acc, VQF* off) {
    const auto group = [b, nb](VQF a, int64_t g, const Residuals& r) { return SpikyGroup(b, nb, a, g, r); };
    for (int t = 0; t < kN; ++t) {
      acc[t] = AddSpikyGroups(x[t], hn::Zero(DQF()), group);
      off[t] = hn::Zero(DQF());
    }
  }
  template <int kN>
  static HWY_INLINE void WholeGroup(const Block* b, int64_t k0, const std::array<XSums, kN>& x, VQF* acc, VQF* off) {
    if constexpr (kPaired) {
      PairedGroup<kN, 2>(b, k0, x, acc, off);
    } else {
      Group<kN>(b, k0, kX8Group, x, acc, off);
    }
  }
  template <int kN>
  static HWY_INLINE void EndRow(const Block* b, int64_t k0, int64_t nb, const std::array<XSums, kN>& x, VQF* acc,
                                VQF* off, VQF* sums) {
    LastBlocks<kN>(b, k0, nb, x, acc, off);
    for (int t = 0; t < kN; ++t) sums[t] = hn::Add(acc[t], off[t]);
  }

  // out[i * kN + t] = dot(row i, vector t) for the rows i in kI, row_bytes
  // apart. Each row's sums take the same operations in the same order
  // whatever the rows and kN (Totals4 included), so a row's result does not
  // depend on the rows or vectors it was computed with. Every step is a
  // fold over the rows, each row's accumulators named by a constant: with a
  // loop over the rows, or lambdas, GCC kept them in memory.
  template <int kN, int... kI>
  static HWY_INLINE void RowsDot(std::integer_sequence<int, kI...>, const uint8_t* row, size_t row_bytes,
                                 int64_t cols, const XSums& xs, float* out) {
    constexpr int kRows = sizeof...(kI);
    const int64_t nb = cols / kQK;
    const auto x = Vectors<kN>(xs, cols);
    const Block* b[kRows] = {reinterpret_cast<const Block*>(row + kI * row_bytes)...};
    VQF acc[kRows][kN], off[kRows][kN];
    (StartRow<kN>(b[kI], nb, x, acc[kI], off[kI]), ...);
    // The rows' bytes are prefetched in address order, as far ahead of
    // where the rows together have reached as one row's stream goes (a
    // whole group of each row per step), and the last blocks' with them:
    // from DRAM, four rows read side by side with each row prefetched on its
    // own (or not at all) ran at half the speed of one row at a time
    // (docs/kernels.md, session 26). One Q8_0 row with one vector went
    // without the stream on AMD from session 27 (a host whose DRAM gave 30
    // GB/s to 1 thread) to 35, when hosts giving 10-12 decoded the 1.1B-shaped
    // file 13 % faster with it (docs/kernels.md, session 35).
    constexpr size_t kGroupBytes = kX8Group * sizeof(Block);
    int64_t k0 = 0;
    for (; k0 + kX8Group <= nb; k0 += kX8Group) {
      StreamStep<kRows * kGroupBytes>(row + kRows * k0 * sizeof(Block));
      (WholeGroup<kN>(b[kI], k0, x, acc[kI], off[kI]), ...);
    }
    if (k0 < nb) StreamStep<kRows * (kGroupBytes - sizeof(Block))>(row + kRows * k0 * sizeof(Block));
    VQF sums[kRows * kN];
    (EndRow<kN>(b[kI], k0, nb, x, acc[kI], off[kI], sums + kI * kN), ...);
    StoreTotals<kRows * kN>(sums, out);
  }

  template <int kN>
  static HWY_INLINE void Dot(const uint8_t* row, int64_t cols, const float*, const XSums& xs, float* out) {
    RowsDot<kN>(std::make_integer_sequence<int, 1>(), row, 0, cols, xs, out);
  }

  // One vector, several rows at a time (GemvRows): the rows share each
  // load of the activations and the end of a row's sums, which for
  // SmolLM2's rows of 18 blocks took more than half the time of the row
  // (docs/kernels.md, session 26).
  static constexpr int kRowsPerDot = 4;
  template <int kRows>
  static HWY_INLINE void DotRows(const uint8_t* row, size_t row_bytes, int64_t cols, const XSums& xs, float* out) {
    RowsDot<1>(std::make_integer_sequence<int, kRows>(), row, row_bytes, cols, xs, out);
  }
};

#endif  // CK_HWY_PORTABLE_TARGET

}  // namespace ck::qgemv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMV_INT8_INL_H_
