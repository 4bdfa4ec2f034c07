// Per-target integer GEMM of prefill, re-included by gemm.cc once per
// Highway target (HWY_TARGET_INCLUDE + foreach_target.h).
//
// Weights: a tile of rows is decoded once per call into unsigned bytes with
// an affine map per block (decode_u8.h: w = a*u + c) and interleaved so that
// the int32 lanes of a vector are rows: a group of R rows (R = int32 lanes of
// the target) stores, for each four consecutive columns, R x 4 bytes. One
// byte dot product of that vector with four activation bytes broadcast then
// adds four products to every row at once, with no horizontal sums; the
// tile stays in L2 while every token streams past it.
// Activations: int8 per 32 values (x ~ q * s, s = max|x| / 127), the same
// rounding as llama.cpp's Q8_0 (the measured decision in docs/kernels.md).
// Per block b of a row r and token t: y += a * s * sum(u*q) + c * (sum of
// the rounded x over the block). Blocks of heavy-tailed activations get a
// second pass over their rounding error (Int8Residual, gemv.h).
// Instructions: vpdpbusd (AVX3_DL: AVX512-VNNI) or pmaddubsw + pmaddwd
// (AVX3, AVX2, SSE4, SSSE3), whose int16 pair sums cannot saturate because
// u <= 63; the pair sums of several quads add up in int16 before one
// pmaddwd, as many as the dtype's largest u allows (BlockProducts). The
// signed dtypes (Q8_0) keep their signed q there: AVX3 moves the sign onto
// x, the 256-bit and narrower targets multiply int16 words by pmaddwd alone
// (kWordProducts).

#if defined(CK_KERNELS_GEMM_INT8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_GEMM_INT8_INL_H_
#undef CK_KERNELS_GEMM_INT8_INL_H_
#else
#define CK_KERNELS_GEMM_INT8_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/blocks.h"
#include "kernels/dtype.h"
#include "kernels/fp16.h"
#include "kernels/hwy_portable.h"
#include "kernels/keep_in_register-inl.h"
#include "kernels/row_groups.h"

#ifndef CK_KERNELS_GEMM_INT8_TYPES_
#define CK_KERNELS_GEMM_INT8_TYPES_
namespace ck::qgemm {
// n tokens of activations quantized to int8 per 32 values.
struct Int8Activations {
  const int8_t* q;       // n x cols, or null where every matrix of the call multiplies words
  const int16_t* q16;    // the same values as int16 (where words multiply), or null
  const float* scale;    // n x cols/32
  const float* sum16;    // n x cols/16: sums of the rounded x (q * scale)
  const float* sum32;    // n x cols/32
  // For the dtypes whose offset is a fixed multiple of the scale (c = k a,
  // FixedOffset): k times the sums per weight block, so the two terms fold
  // into one, a * (s * sum(u*q) + k * sum(x)); null for the others.
  const float* koff;     // n x cols/u8_block
  int64_t cols;
};
// The second pass over the spiky blocks (gemv.h, kInt8SpikeRatio): row t of
// x is the rounding residual of token t; its block b (of 32 values) is
// non-zero for t = tokens[starts[b] .. starts[b + 1]). The products are
// added to the token's outputs (by the thread that wrote them, right after
// its first pass over the group).
struct Int8Residual {
  Int8Activations x;
  const int32_t* starts;
  const int32_t* tokens;
};
// How a dtype's tile is laid out on a target: bytes per weight (2 where it
// multiplies int16 words) and the groups of R rows that one pass of the
// kernel takes (2 where two share a pass, kPairedGroups), so that a tile of a
// multiple of them has no group left over for the slower single pass.
struct TileFormat {
  int weight_bytes;
  int groups_per_pass;
};
// Per-thread buffers: the interleaved tile and one group's decoded rows.
struct Int8Scratch {
  uint8_t* tile_u;
  float* tile_a;
  float* tile_c;
  uint8_t* row_u;
  float* row_a;
  float* row_c;
};
}  // namespace ck::qgemm
#endif

HWY_BEFORE_NAMESPACE();
namespace ck::qgemm::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D32 = hn::ScalableTag<int32_t>;
using DF = hn::Rebind<float, D32>;
using DU8 = hn::Repartition<uint8_t, D32>;
using DI8 = hn::Repartition<int8_t, D32>;
using V32 = hn::Vec<D32>;
using VF = hn::Vec<DF>;

// Whether bytes multiply through int16 pair sums (pmaddubsw + pmaddwd),
// rather than vpdpbusd (AVX3_DL) or lane by lane (portable targets). Their
// unsigned-by-signed products would saturate for Q8_0's u = q + 128, so
// there Q8_0 keeps its signed q and moves the sign onto x.
#if CK_HWY_PORTABLE_TARGET || HWY_TARGET == HWY_AVX3_DL
constexpr bool kPairSums = false;
#else
constexpr bool kPairSums = true;
#endif

// Whether the signed dtypes multiply int16 words (pmaddwd alone: one
// multiply per 16 products) rather than bytes with the sign moved onto x
// (vpsignb + pmaddubsw + pmaddwd per 32). On Zen 3 those three and
// pmaddwd share the same two pipes (measured: each alone and any two
// interleaved issue two a cycle, vpaddd four), so the sign form takes 1.5
// cycles per 32 products there and the words 1.0; the words' broadcasts of
// x are loads, which two groups share (kPairedGroups). AVX3 keeps the
// sign form (unmeasured on its CPUs); AVX3_DL has vpdpbusd.
constexpr bool kWordProducts = kPairSums && HWY_TARGET > HWY_AVX3;

// Rows per interleaved group: one per int32 lane.
size_t GroupRows() { return hn::Lanes(D32()); }

// Whether this target keeps the signed q of a u8_signed dtype (Q8_0): only
// where pair sums would saturate on u = q + 128.
bool KeepsSignedQ(const DTypeTraits& tr) { return tr.u8_signed && kPairSums; }

bool MultipliesWords(const DTypeTraits& tr) { return kWordProducts && KeepsSignedQ(tr); }

// k where this target's byte form has c = k * a for every block (the
// dtype's u8_offset, or 0 where it keeps the signed q); NaN where c is free.
float FixedOffset(DType dt) {
  const DTypeTraits& tr = traits(dt);
  return KeepsSignedQ(tr) ? 0.0f : tr.u8_offset;
}

// acc[r] += sum_{i<4} w[4r + i] * x4[i]: w unsigned bytes, x4 four signed
// bytes (the targets without pair sums).
HWY_INLINE V32 DotQuad(V32 acc, const uint8_t* w, const int8_t* x4) {
#if HWY_TARGET == HWY_AVX3_DL
  // Highway 1.0.3 has no op for vpdpbusd and its AVX3_DL target attribute
  // lacks avx512vnni, so the intrinsic would not inline: asm, with x4
  // broadcast straight from memory.
  auto raw = acc.raw;
  asm("vpdpbusd %2%{1to16%}, %1, %0"
      : "+v"(raw)
      : "v"(hn::LoadU(DU8(), w).raw), "m"(*reinterpret_cast<const int32_t*>(x4)));
  return V32{raw};
#else
  // Portable targets (no byte dot product): lane by lane.
  HWY_ALIGN int32_t lanes[hn::MaxLanes(D32())];
  hn::Store(acc, D32(), lanes);
  for (size_t r = 0; r < hn::Lanes(D32()); ++r) {
    for (size_t i = 0; i < 4; ++i) lanes[r] += int32_t{w[4 * r + i]} * x4[i];
  }
  return hn::Load(D32(), lanes);
#endif
}

#if HWY_TARGET == HWY_AVX3_DL
// acc[r] += sum_{i<4} w[4r + i] * x4[i] with w and the broadcast x4 in
// registers: where two groups share each broadcast.
HWY_INLINE V32 DotQuads(V32 acc, hn::Vec<DU8> w, V32 x4) {
  auto raw = acc.raw;
  asm("vpdpbusd %2, %1, %0" : "+v"(raw) : "v"(w.raw), "v"(x4.raw));
  return V32{raw};
}
#endif

using ck::HWY_NAMESPACE::KeepInRegister;

#if !CK_HWY_PORTABLE_TARGET && HWY_TARGET != HWY_AVX3_DL
using D16 = hn::Repartition<int16_t, D32>;
using V16 = hn::Vec<D16>;

// The int16 pair sums w[4r] x4[0] + w[4r+1] x4[1], w[4r+2] x4[2] +
// w[4r+3] x4[3] (pmaddubsw) of the bytes w and x4 in every lane of x: w
// unsigned, or signed (kSignedW, AVX3 only: Q8_0, whose q + 128 would
// saturate) with the sign moved onto x.
template <bool kSignedW>
HWY_INLINE V16 PairSums(hn::Vec<DU8> w, V32 x) {
  static_assert(!kSignedW || !kWordProducts, "the signed weights multiply words here");
  auto xv = x.raw;
  auto wv = w.raw;
#if HWY_TARGET <= HWY_AVX3
  if constexpr (kSignedW) {
    // |w| * (x with the sign of w) == w * x; AVX-512 has no vpsignb.
    const auto neg = _mm512_movepi8_mask(wv);
    xv = _mm512_mask_sub_epi8(xv, neg, _mm512_setzero_si512(), xv);
    wv = _mm512_abs_epi8(wv);
  }
  return V16{_mm512_maddubs_epi16(wv, xv)};
#elif HWY_TARGET == HWY_AVX2
  return V16{_mm256_maddubs_epi16(wv, xv)};
#else
  return V16{_mm_maddubs_epi16(wv, xv)};
#endif
}

// The int32 sums of adjacent int16 products (pmaddwd).
HWY_INLINE V32 MulPairs(V16 a, V16 b) {
#if HWY_TARGET <= HWY_AVX3
  return V32{_mm512_madd_epi16(a.raw, b.raw)};
#elif HWY_TARGET == HWY_AVX2
  return V32{_mm256_madd_epi16(a.raw, b.raw)};
#else
  return V32{_mm_madd_epi16(a.raw, b.raw)};
#endif
}

// acc + the int32 sums of adjacent int16 pairs (pmaddwd by ones).
HWY_INLINE V32 AddWidened(V32 acc, V16 pairs) { return hn::Add(acc, MulPairs(pairs, hn::Set(D16(), 1))); }

#endif

// The element types of the tile's weights and of the activations: int16
// words for the signed weights where they multiply words, else bytes.
template <bool kSignedW>
using TileWeight = std::conditional_t<kSignedW && kWordProducts, int16_t, uint8_t>;
template <bool kSignedW>
using Value = std::conditional_t<kSignedW && kWordProducts, int16_t, int8_t>;

template <bool kSignedW>
const Value<kSignedW>* Values(const Int8Activations& x) {
  if constexpr (kSignedW && kWordProducts) {
    return x.q16;
  } else {
    return x.q;
  }
}

// The four bytes at p (a quad of int8 or a pair of int16) in every lane.
HWY_INLINE V32 BroadcastQuad(const void* p) {
  int32_t x32;
  std::memcpy(&x32, p, 4);
  return hn::Set(D32(), x32);
}

// isum[g * kT + t] += the products of group g's kB weights at u + g *
// group_stride (kB / 4 quads of R x 4 bytes, or kB / 2 pairs of R x 2
// words) with token t's kB activations at x[t]; each broadcast of x feeds
// every group. Words: one pmaddwd per column pair, group and token. With
// pair sums, kDepth quads add up in int16 before one widening: the dtype's
// largest u bounds each pair sum by 2 * 127 * u_max (Depth), so kDepth of
// them cannot overflow, which saves a pmaddwd and an add per quad.
template <int kG, int kT, int kB, bool kSignedW, int kDepth>
HWY_INLINE void BlockProducts(const TileWeight<kSignedW>* u, size_t group_stride, const Value<kSignedW>* const* x,
                              V32* isum) {
  const size_t R = hn::Lanes(D32());
  // A base pointer per group: with u + g * group_stride + j * 2R in every
  // load GCC kept one register per (group, j) offset and spilled them.
  const TileWeight<kSignedW>* ug[kG];
  for (int g = 0; g < kG; ++g) ug[g] = u + g * group_stride;
#if !CK_HWY_PORTABLE_TARGET && HWY_TARGET != HWY_AVX3_DL
  if constexpr (kSignedW && kWordProducts) {
    // Fully unrolled: as a loop GCC added three register copies and the
    // loop's own three instructions to the 17 of an iteration (two groups,
    // three tokens), and the front end, not the two pmaddwd pipes, set the
    // pace (Zen 3, 1.1B Q8_0 pp512 1 thread 39 -> 51-57 t/s, docs/kernels.md).
    HWY_UNROLL(16)
    for (int j = 0; j < kB / 2; ++j) {
      V16 wv[kG];
      for (int g = 0; g < kG; ++g) wv[g] = hn::LoadU(D16(), ug[g] + static_cast<size_t>(j) * 2 * R);
      for (int t = 0; t < kT; ++t) {
        const V16 xv = hn::BitCast(D16(), BroadcastQuad(x[t] + 2 * j));
        for (int g = 0; g < kG; ++g) {
          isum[g * kT + t] = hn::Add(isum[g * kT + t], MulPairs(wv[g], xv));
          KeepInRegister(isum[g * kT + t]);
        }
      }
    }
  } else {
    static_assert((kB / 4) % kDepth == 0, "whole runs of quads");
    for (int j0 = 0; j0 < kB / 4; j0 += kDepth) {
      V16 pairs[kG * kT];
      HWY_UNROLL(8)
      for (int j = j0; j < j0 + kDepth; ++j) {
        hn::Vec<DU8> wv[kG];
        for (int g = 0; g < kG; ++g) wv[g] = hn::LoadU(DU8(), ug[g] + static_cast<size_t>(j) * 4 * R);
        for (int t = 0; t < kT; ++t) {
          const V32 xv = BroadcastQuad(x[t] + 4 * j);
          for (int g = 0; g < kG; ++g) {
            const V16 p = PairSums<kSignedW>(wv[g], xv);
            V16& sum = pairs[g * kT + t];
            sum = j == j0 ? p : hn::Add(sum, p);
            if constexpr (kDepth > 1) KeepInRegister(sum);
          }
        }
      }
      for (int i = 0; i < kG * kT; ++i) {
        isum[i] = AddWidened(isum[i], pairs[i]);
        KeepInRegister(isum[i]);
      }
    }
  }
#else
  static_assert(!kSignedW, "the targets without pair sums multiply unsigned weights");
#if HWY_TARGET == HWY_AVX3_DL
  if constexpr (kG > 1) {
    for (int j = 0; j < kB / 4; ++j) {
      hn::Vec<DU8> wv[kG];
      for (int g = 0; g < kG; ++g) wv[g] = hn::LoadU(DU8(), ug[g] + static_cast<size_t>(j) * 4 * R);
      for (int t = 0; t < kT; ++t) {
        const V32 xv = BroadcastQuad(x[t] + 4 * j);
        for (int g = 0; g < kG; ++g) isum[g * kT + t] = DotQuads(isum[g * kT + t], wv[g], xv);
      }
    }
    return;
  }
#endif
  for (int j = 0; j < kB / 4; ++j) {
    for (int g = 0; g < kG; ++g) {
      const uint8_t* w = ug[g] + static_cast<size_t>(j) * 4 * R;
      for (int t = 0; t < kT; ++t) isum[g * kT + t] = DotQuad(isum[g * kT + t], w, x[t] + 4 * j);
    }
  }
#endif
}

// Quads of a block that may add up in int16 (BlockProducts) for weights up
// to u_max; a power of two dividing kB / 4.
constexpr int Depth(int kB, int u_max, bool signed_w) {
  const int bound = signed_w ? 128 : u_max;
  int depth = 1;
  while (2 * depth <= kB / 4 && 2 * depth * 2 * 127 * bound <= 32767) depth *= 2;
  return depth;
}

// acc + one block's products for R rows and one token: a * s * isum plus
// the offset term, folded as a * (s * isum + k * sum(x)) (kFixedC; *sum is
// k * sum(x)) or c * sum(x) with c's R lanes at c. The signed weights have
// no offset term (their c is zero, FixedOffset).
template <bool kSignedW, bool kFixedC>
HWY_INLINE VF AddBlock(VF acc, VF va, V32 isum, VF xs, const float* sum, const float* c) {
  const DF df;
  const VF products = hn::ConvertTo(df, isum);
  if constexpr (kSignedW) return hn::MulAdd(va, hn::Mul(products, xs), acc);
  const VF vsum = hn::Set(df, *sum);
  if constexpr (kFixedC) return hn::MulAdd(va, hn::MulAdd(products, xs, vsum), acc);
  return hn::MulAdd(hn::LoadU(df, c), vsum, hn::MulAdd(va, hn::Mul(products, xs), acc));
}

// Y[t * y_stride + g * R + r] for the R rows of kG consecutive groups and
// kT tokens, over all blocks of kB weights. u, a, c: the first group's
// interleaved weights and its per-block (a, c) of R lanes each, the next
// group's right after them. `valid` rows of the last group are stored (the
// last group of a matrix may be partial).
template <int kG, int kT, int kB, bool kSignedW, int kDepth, bool kFixedC>
HWY_NOINLINE void GroupTokens(const TileWeight<kSignedW>* u, const float* a, const float* c, int64_t cols,
                              const Value<kSignedW>* xq, const float* xscale, const float* xsum, float* y,
                              int64_t y_stride, size_t valid) {
  const DF df;
  const size_t R = hn::Lanes(D32());
  const int64_t nblocks = cols / kB;
  const size_t group_weights = static_cast<size_t>(cols) * R, group_blocks = static_cast<size_t>(nblocks) * R;
  VF acc[kG * kT];
  for (int i = 0; i < kG * kT; ++i) {
    // Pinned: GCC otherwise zeroes the array on the stack with `rep stosq`
    // and loads it back, a failed store forwarding at every call that took
    // a fifth of the time of two groups of words (Q8_0 3072 x 576, n = 512).
    acc[i] = hn::Zero(df);
    KeepInRegister(acc[i]);
  }
  for (int64_t b = 0; b < nblocks; ++b) {
    V32 isum[kG * kT];
    for (int i = 0; i < kG * kT; ++i) isum[i] = hn::Zero(D32());
    const Value<kSignedW>* xb[kT];
    for (int t = 0; t < kT; ++t) xb[t] = xq + t * cols + b * kB;
    BlockProducts<kG, kT, kB, kSignedW, kDepth>(u + static_cast<size_t>(b * kB) * R, group_weights, xb, isum);
    VF va[kG];
    for (int g = 0; g < kG; ++g) va[g] = hn::LoadU(df, a + g * group_blocks + b * R);
    for (int t = 0; t < kT; ++t) {
      const VF xs = hn::Set(df, xscale[t * (cols / 32) + b * kB / 32]);
      for (int g = 0; g < kG; ++g) {
        acc[g * kT + t] = AddBlock<kSignedW, kFixedC>(acc[g * kT + t], va[g], isum[g * kT + t], xs,
                                                      xsum + t * nblocks + b, c + g * group_blocks + b * R);
      }
    }
  }
  for (int g = 0; g < kG; ++g) {
    for (int t = 0; t < kT; ++t) {
      float* yt = y + t * y_stride + g * R;
      if (g + 1 < kG || valid == R) {
        hn::StoreU(acc[g * kT + t], df, yt);
      } else {
        HWY_ALIGN float tmp[hn::MaxLanes(DF())];
        hn::Store(acc[g * kT + t], df, tmp);
        std::memcpy(yt, tmp, valid * sizeof(float));
      }
    }
  }
}

// AVX-512 has 32 vector registers: 8 tokens keep 16 accumulators, the
// weight vector and the scales in registers; 16 registers take 4.
#if HWY_TARGET <= HWY_AVX3
constexpr int kTokens = 8;
#else
constexpr int kTokens = 4;
#endif

// Whether a pass takes two groups at once (kG = 2): each broadcast of x
// then feeds two multiplies, so that fewer loads and register copies come
// with each. Where the 16 registers hold both groups' sums: the words, the
// bytes whose block adds up in int16 in one run (no int32 sums kept across
// runs) and, with fewer tokens, Q6_K's 16-blocks. (Zen 3: with one group of words the broadcasts bound the
// loop, one per pmaddwd; bytes of 576-column rows, standalone loop, 26 -> 30
// products a cycle.) AVX3_DL: every dtype, its 32 registers holding two
// groups of vpdpbusd sums for 6 tokens (Zen 4, BM_gemm n = 512 1 thread,
// eight simultaneous pinned pairs against one group of 8 tokens, median
// ratios: Q4_1 3072 x 576 1.08, Q6_K_L 1.11, Q8_0 1.05, Q4_K 1.02; 4
// tokens 1.05, 1.08, 1.05, 1.06).
template <int kB, bool kSignedW, int kDepth>
constexpr bool kPairedGroups =
    HWY_TARGET == HWY_AVX3_DL ||
    (kPairSums && HWY_TARGET > HWY_AVX3 && (kSignedW ? kWordProducts : kDepth * 4 == kB || (kB == 16 && kDepth > 1)));
// Tokens per pass of two groups: AVX3_DL 6 (24 int32 and float sums, two
// weight vectors and a broadcast); on 16 registers 12 int32 (or int16) and
// float sums, the two weight vectors and a broadcast; where a block sums in
// int16 in more than one run (Q6_K's 16-blocks in two), 2: 8 int32 sums
// kept across the runs. (Q5_0's 32-blocks in two runs gained nothing from
// two groups x two tokens: BM_gemm 0.90-0.99, Q6_K_L 1.06-1.12, max of
// alternated runs.)
template <int kB, bool kSignedW, int kDepth>
constexpr int kPairTokens = HWY_TARGET == HWY_AVX3_DL ? 6 : !kSignedW && kDepth * 4 < kB ? 2 : 3;

// All n tokens against kG groups, kT at a time; the remainder by the
// instantiation of its size.
template <int kG, int kB, bool kSignedW, int kDepth, int kT = kG == 2 ? kPairTokens<kB, kSignedW, kDepth> : kTokens>
void GroupAllTokens(const TileWeight<kSignedW>* u, const float* a, const float* c, const Int8Activations& x,
                    int64_t t0, int64_t n, float* y, int64_t rows, size_t valid) {
  const int64_t cols = x.cols;
  const float* sums = x.koff != nullptr ? x.koff : kB == 16 ? x.sum16 : x.sum32;
  int64_t t = t0;
  for (; t + kT <= n; t += kT) {
    const auto run = x.koff != nullptr ? GroupTokens<kG, kT, kB, kSignedW, kDepth, true>
                                       : GroupTokens<kG, kT, kB, kSignedW, kDepth, false>;
    run(u, a, c, cols, Values<kSignedW>(x) + t * cols, x.scale + t * (cols / 32), sums + t * (cols / kB),
        y + t * rows, rows, valid);
  }
  if constexpr (kT > 1) {
    if (t < n) GroupAllTokens<kG, kB, kSignedW, kDepth, kT - 1>(u, a, c, x, t, n, y, rows, valid);
  }
}

// The residual products of one group for the kT tokens toks[0..kT)
// in block b32 (of 32 values; two blocks of kB = 16): added to their
// tokens' outputs y[token * rows ...] in memory, since each (block, row)
// pair is visited once; `valid` lanes of them (a partial last group).
template <int kT, int kB, bool kSignedW, int kDepth, bool kFixedC>
HWY_INLINE void ResidualTokens(const TileWeight<kSignedW>* u, const float* a, const float* c,
                               const Int8Residual& res, int64_t b32, const int32_t* toks, float* y, int64_t rows,
                               size_t valid) {
  const DF df;
  const size_t R = hn::Lanes(D32());
  const int64_t cols = res.x.cols;
  const float* sums = kFixedC ? res.x.koff : kB == 16 ? res.x.sum16 : res.x.sum32;
  for (int64_t b = b32 * (32 / kB); b < (b32 + 1) * (32 / kB); ++b) {
    V32 isum[kT];
    const Value<kSignedW>* xb[kT];
    for (int t = 0; t < kT; ++t) {
      isum[t] = hn::Zero(D32());
      xb[t] = Values<kSignedW>(res.x) + toks[t] * cols + b * kB;
    }
    BlockProducts<1, kT, kB, kSignedW, kDepth>(u + static_cast<size_t>(b * kB) * R, 0, xb, isum);
    const VF va = hn::LoadU(df, a + b * R);
    for (int t = 0; t < kT; ++t) {
      float* yt = y + toks[t] * rows;
      HWY_ALIGN float part[hn::MaxLanes(DF())];
      if (valid < R) std::memcpy(part, yt, valid * sizeof(float));
      float* yv = valid < R ? part : yt;
      const VF xs = hn::Set(df, res.x.scale[toks[t] * (cols / 32) + b32]);
      hn::StoreU(AddBlock<kSignedW, kFixedC>(hn::LoadU(df, yv), va, isum[t], xs, sums + toks[t] * (cols / kB) + b,
                                             c + b * R),
                 df, yv);
      if (valid < R) std::memcpy(yt, part, valid * sizeof(float));
    }
  }
}

// All n residual rows toks[0..n) of block b32, kT at a time in one loop
// (its iterations are independent, so the out-of-order core overlaps one
// group's chain of byte products with the next one's); the remainder by the
// instantiation of its size.
template <int kB, bool kSignedW, int kDepth, bool kFixedC, int kT = kTokens>
HWY_NOINLINE void ResidualAllTokens(const TileWeight<kSignedW>* u, const float* a, const float* c,
                                    const Int8Residual& res, int64_t b32, const int32_t* toks, int64_t n, float* y,
                                    int64_t rows, size_t valid) {
  int64_t t = 0;
  for (; t + kT <= n; t += kT) {
    ResidualTokens<kT, kB, kSignedW, kDepth, kFixedC>(u, a, c, res, b32, toks + t, y, rows, valid);
  }
  if constexpr (kT > 1) {
    if (t < n) {
      ResidualAllTokens<kB, kSignedW, kDepth, kFixedC, kT - 1>(u, a, c, res, b32, toks + t, n - t, y, rows, valid);
    }
  }
}

// The second pass of one group: the spiky (block, token) pairs of the
// residual rows.
template <int kB, bool kSignedW, int kDepth>
void ResidualPass(const TileWeight<kSignedW>* u, const float* a, const float* c, int64_t cols, float* y, int64_t rows,
                  size_t valid, const Int8Residual& res) {
  const auto run = res.x.koff != nullptr ? ResidualAllTokens<kB, kSignedW, kDepth, true>
                                         : ResidualAllTokens<kB, kSignedW, kDepth, false>;
  for (int64_t b32 = 0; b32 < cols / 32; ++b32) {
    const int32_t begin = res.starts[b32], end = res.starts[b32 + 1];
    if (end > begin) run(u, a, c, res, b32, res.tokens + begin, end - begin, y, rows, valid);
  }
}

// Both passes for kG groups: every token, then the spiky (block, token)
// pairs of the residual rows, group by group.
template <int kG, int kB, bool kSignedW, int kDepth>
void GroupBothPasses(const uint8_t* tile, const float* a, const float* c, const Int8Activations& x, int64_t n,
                     float* y, int64_t rows, size_t valid, const Int8Residual* res) {
  const auto* u = reinterpret_cast<const TileWeight<kSignedW>*>(tile);
  GroupAllTokens<kG, kB, kSignedW, kDepth>(u, a, c, x, 0, n, y, rows, valid);
  if (res == nullptr) return;
  const size_t R = GroupRows();
  const int64_t cols = x.cols;
  const size_t group_weights = static_cast<size_t>(cols) * R, group_blocks = static_cast<size_t>(cols / kB) * R;
  for (int g = 0; g < kG; ++g) {
    ResidualPass<kB, kSignedW, kDepth>(u + g * group_weights, a + g * group_blocks, c + g * group_blocks, cols,
                                       y + g * R, rows, g + 1 < kG ? R : valid, *res);
  }
}

// Both passes for the groups of rows [g0, r1), one or two at a time
// (kPairedGroups): returns the rows done.
template <int kB, bool kSignedW, int kDepth>
int64_t GroupsBothPasses(const uint8_t* tile, const float* a, const float* c, const Int8Activations& x, int64_t n,
                         float* y, int64_t rows, int64_t g0, int64_t r1, const Int8Residual* res) {
  const int64_t R = static_cast<int64_t>(GroupRows());
  if constexpr (kPairedGroups<kB, kSignedW, kDepth>) {
    if (g0 + R < r1) {
      const size_t valid = static_cast<size_t>(std::min(R, r1 - g0 - R));
      GroupBothPasses<2, kB, kSignedW, kDepth>(tile, a, c, x, n, y + g0, rows, valid, res);
      return 2 * R;
    }
  }
  const size_t valid = static_cast<size_t>(std::min(R, r1 - g0));
  GroupBothPasses<1, kB, kSignedW, kDepth>(tile, a, c, x, n, y + g0, rows, valid, res);
  return R;
}

// Interleaves a group's R decoded rows (rows_u: R x cols, u = q + 128) as
// int16 words: for each column pair, R lanes of (q[2p], q[2p + 1]).
void InterleaveWords(const uint8_t* rows_u, int64_t cols, uint8_t* gu) {
  const size_t R = GroupRows();
#if HWY_TARGET == HWY_AVX2
  // 16 columns of the 8 rows at a time: each row's 8 pairs widened to one
  // vector, then an 8 x 8 transpose of 32-bit pairs (with a scalar store
  // per pair BuildTile took a third of the GEMM's time in a 64-token call).
  const __m128i bias = _mm_set1_epi8(static_cast<char>(0x80));
  for (int64_t c0 = 0; c0 < cols; c0 += 16) {
    __m256i v[8];
    for (size_t rr = 0; rr < 8; ++rr) {
      const auto* src = reinterpret_cast<const __m128i*>(rows_u + rr * static_cast<size_t>(cols) + c0);
      v[rr] = _mm256_cvtepi8_epi16(_mm_xor_si128(_mm_loadu_si128(src), bias));
    }
    __m256i t[8], q[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_epi32(v[i], v[i + 1]);      // pairs 0, 1 | 4, 5 of rows i, i + 1
      t[i + 1] = _mm256_unpackhi_epi32(v[i], v[i + 1]);  // pairs 2, 3 | 6, 7
    }
    for (int i = 0; i < 8; i += 4) {
      q[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);  // pair 0 | 4 of rows i..i + 3
      q[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
      q[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
      q[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    auto* dst = reinterpret_cast<__m256i*>(gu + static_cast<size_t>(c0 / 2) * 4 * R);
    for (int p = 0; p < 4; ++p) {
      _mm256_storeu_si256(dst + p, _mm256_permute2x128_si256(q[p], q[p + 4], 0x20));
      _mm256_storeu_si256(dst + p + 4, _mm256_permute2x128_si256(q[p], q[p + 4], 0x31));
    }
  }
#else
  for (size_t rr = 0; rr < R; ++rr) {
    const uint8_t* row = rows_u + rr * static_cast<size_t>(cols);
    uint8_t* dst = gu + rr * 4;
    for (int64_t p = 0; p < cols / 2; ++p, dst += 4 * R) {
      const int16_t pair[2] = {static_cast<int16_t>(row[2 * p] - 128), static_cast<int16_t>(row[2 * p + 1] - 128)};
      std::memcpy(dst, pair, 4);
    }
  }
#endif
}

// A row-grouped dtype's tile straight from its stored groups, where they
// hold whole groups of the target's (R rows, R | 16): a block column's
// quads are its words (Q8_0) or their low and high nibbles (Q4_0, Q4_1;
// Q5_0, Q5_1 with their fifth bits from the qh word), 16 rows x 4 bytes
// each as the byte tile takes them, so a group of R rows
// is a slice of each, Q8_0's sign flipped where the tile holds u = q + 128
// (VNNI). AVX2 multiplies Q8_0 as int16 pairs (InterleaveWords' layout):
// each half of a group's quads regrouped into pairs and widened; SSE4 and
// SSSE3 gather Q8_0's rows one at a time. a and c are decode_u8's: d, and
// -128 d, -8 d or m. Gathered, SmolLM2 Q8_0's prefill with 1 thread ran
// 2-7 % slower than from Q8_0 on AVX3_DL and 5-9 % on AVX2; from the groups
// 2-5 % faster (docs/kernels.md, "Session 41").
// Q4_K_R16 and Q6_K_R16 likewise (BuildTileFromSuperBlocks): gathered into
// ggml's blocks, the 1.1B-shaped Q4_K_M file's prefill with 2 threads ran
// 8 % slower than from Q4_K_L on Zen 4 ("Session 46"), the Q6_K file's 7 %
// slower than from Q6_K_L on an Intel Xeon ("Session 52").
bool TakesGroupsAsStored(const DTypeTraits& tr) {
  if (tr.row_group <= 1 || tr.row_group % static_cast<int>(GroupRows()) != 0) return false;
  return HWY_TARGET == HWY_AVX2 || !MultipliesWords(tr);
}

// Quad q (0..7: weights 4q .. 4q + 3) of the 16 rows of a block column, as
// the byte tile takes it (u, or Q8_0's q where signed_q).
void ColumnQuad(const RowGroupLayout& L, const uint8_t* column, int q, bool signed_q, uint8_t* out) {
  const bool nibbles = L.quant_words() == 4;
  const uint8_t* word = column + L.quant_at(nibbles ? q % 4 : q, 0);
  for (int i = 0; i < 4 * kRowGroup; i += 8) {
    uint64_t w;
    std::memcpy(&w, word + i, 8);
    if (nibbles) {
      w = (q < 4 ? w : w >> 4) & 0x0F0F0F0F0F0F0F0Full;
      if (L.has_high_bits()) {  // bit q of each qh byte is its weight's fifth bit
        uint64_t h;
        std::memcpy(&h, column + L.word_at(0, 0) + i, 8);
        w |= (q < 4 ? h << (4 - q) : h >> (q - 4)) & 0x1010101010101010ull;
      }
    } else if (!signed_q) {
      w ^= 0x8080808080808080ull;
    }
    std::memcpy(out + i, &w, 8);
  }
}

void BuildTileFromGroups(const DTypeTraits& tr, const RowGroupLayout& L, const uint8_t* W, size_t row_bytes,
                         int64_t r0, int64_t r1, int64_t cols, bool signed_q, const Int8Scratch& s) {
  const int64_t nb = cols / kQK;
  const int64_t R = static_cast<int64_t>(GroupRows()), halves = kRowGroup / R;
  const size_t weight_bytes = MultipliesWords(tr) ? 2 : 1;
  for (int64_t r = r0, g = 0; r < r1; r += kRowGroup, g += halves) {
    const uint8_t* group = W + static_cast<size_t>(r) * row_bytes;
    for (int64_t k = 0; k < nb; ++k) {
      const uint8_t* column = group + k * L.column_bytes();
      for (int64_t h = 0; h < halves; ++h) {
        uint8_t* const gu = s.tile_u + static_cast<size_t>((g + h) * cols * R) * weight_bytes;
        float* const ga = s.tile_a + static_cast<size_t>((g + h) * nb * R);
        float* const gc = s.tile_c + static_cast<size_t>((g + h) * nb * R);
#if HWY_TARGET == HWY_AVX2
        if (weight_bytes == 2) {
          // Per 128 bits the first two bytes of each of four rows, then the
          // last two; the 64-bit halves then go [rows 0-3 | 4-7] per pair.
          alignas(32) static constexpr uint8_t kPairs[32] = {0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                                             0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15};
          const __m256i by_pair = _mm256_load_si256(reinterpret_cast<const __m256i*>(kPairs));
          for (int j = 0; j < 8; ++j) {
            const auto* quads = reinterpret_cast<const __m256i*>(column + L.quant_at(j, static_cast<int>(h * R)));
            const __m256i pairs =
                _mm256_permute4x64_epi64(_mm256_shuffle_epi8(_mm256_loadu_si256(quads), by_pair), 0xD8);
            auto* dst = reinterpret_cast<__m256i*>(gu + static_cast<size_t>(16 * k + 2 * j) * 4 * R);
            _mm256_storeu_si256(dst, _mm256_cvtepi8_epi16(_mm256_castsi256_si128(pairs)));
            _mm256_storeu_si256(dst + 1, _mm256_cvtepi8_epi16(_mm256_extracti128_si256(pairs, 1)));
          }
        }
#endif
        if (weight_bytes == 1) {
          for (int q = 0; q < 8; ++q) {
            uint8_t quad[4 * kRowGroup];
            ColumnQuad(L, column, q, signed_q, quad);
            std::memcpy(gu + static_cast<size_t>(8 * k + q) * 4 * R, quad + 4 * h * R, static_cast<size_t>(4 * R));
          }
        }
        for (int64_t i = 0; i < R; ++i) {
          const int row = static_cast<int>(h * R + i);
          uint16_t d;
          std::memcpy(&d, column + L.field_at(0, row), 2);
          ga[k * R + i] = fp16_to_fp32(d);
          if (std::isnan(tr.u8_offset)) {
            uint16_t m;
            std::memcpy(&m, column + L.field_at(1, row), 2);
            gc[k * R + i] = fp16_to_fp32(m);
          } else {
            gc[k * R + i] = tr.u8_offset * ga[k * R + i];
          }
        }
      }
    }
  }
}

// Rows row0 .. row0 + R - 1 of block column `column` of Q4_K_R16 into the
// tile: word 8c + i of a row holds weights 64c + 4i .. + 3 in its low
// nibbles and 64c + 32 + 4i .. in its high ones (row_groups.h), so each
// word's rows are two of the byte tile's quads (quads 16c + i and 16c + 8
// + i of the super-block at gu); a and c are decode_u8_q4_k's per
// sub-block of 32, d sc and -dmin m.
void Q4_KColumnTile(const RowGroupLayout& L, const uint8_t* column, int row0, int64_t R, uint8_t* gu, float* ga,
                    float* gc) {
  for (int j = 0; j < L.quant_words(); ++j) {
    const uint8_t* word = column + L.quant_at(j, row0);
    uint8_t* const low = gu + static_cast<size_t>(16 * (j / 8) + j % 8) * 4 * R;
    uint8_t* const high = low + static_cast<size_t>(8 * 4 * R);
    for (int64_t b = 0; b < 4 * R; b += 4) {  // a row's word at a time: R may be 1
      uint32_t w;
      std::memcpy(&w, word + b, 4);
      const uint32_t lo = w & 0x0F0F0F0Fu, hi = (w >> 4) & 0x0F0F0F0Fu;
      std::memcpy(low + b, &lo, 4);
      std::memcpy(high + b, &hi, 4);
    }
  }
  for (int64_t i = 0; i < R; ++i) {
    const int row = static_cast<int>(row0 + i);
    uint16_t dh, mh;
    std::memcpy(&dh, column + L.field_at(0, row), 2);
    std::memcpy(&mh, column + L.field_at(1, row), 2);
    const float d = fp16_to_fp32(dh), dmin = fp16_to_fp32(mh);
    uint8_t scales[12];
    for (int w = 0; w < 3; ++w) std::memcpy(scales + 4 * w, column + L.word_at(w, row), 4);
    for (int j = 0; j < kQK_K / kQK; ++j) {
      uint8_t sc, m;
      k_scale_min(j, scales, &sc, &m);
      ga[j * R + i] = d * static_cast<float>(sc);
      gc[j * R + i] = -dmin * static_cast<float>(m);
    }
  }
}

// The same for Q6_K_R16: in half h, ql words 16h + i and 16h + 8 + i and
// qh word 32 + 8h + i of a row hold weights 128h + 32q + 4i .. + 3 of the
// four quarters q (their nibbles and bits 2q of qh), quad 32h + 8q + i of
// the super-block; a and c are decode_u8_q6_k's per sub-block of 16, d sc
// and -32 d sc.
void Q6_KColumnTile(const RowGroupLayout& L, const uint8_t* column, int row0, int64_t R, uint8_t* gu, float* ga,
                    float* gc) {
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < 8; ++i) {
      const uint8_t* a = column + L.word_at(kQ6QlWord + 16 * h + i, row0);
      const uint8_t* b = column + L.word_at(kQ6QlWord + 16 * h + 8 + i, row0);
      const uint8_t* c = column + L.word_at(kQ6QhWord + 8 * h + i, row0);
      for (int64_t e = 0; e < 4 * R; e += 4) {
        uint32_t wa, wb, wc;
        std::memcpy(&wa, a + e, 4);
        std::memcpy(&wb, b + e, 4);
        std::memcpy(&wc, c + e, 4);
        const uint32_t quads[4] = {(wa & 0x0F0F0F0Fu) | ((wc << 4) & 0x30303030u),
                                   (wb & 0x0F0F0F0Fu) | ((wc << 2) & 0x30303030u),
                                   ((wa >> 4) & 0x0F0F0F0Fu) | (wc & 0x30303030u),
                                   ((wb >> 4) & 0x0F0F0F0Fu) | ((wc >> 2) & 0x30303030u)};
        for (int q = 0; q < 4; ++q) std::memcpy(gu + static_cast<size_t>(32 * h + 8 * q + i) * 4 * R + e, quads + q, 4);
      }
    }
  }
  for (int64_t i = 0; i < R; ++i) {
    const int row = static_cast<int>(row0 + i);
    uint16_t dh;
    std::memcpy(&dh, column + L.field_at(0, row), 2);
    const float d = fp16_to_fp32(dh);
    int8_t scales[16];
    for (int w = 0; w < 4; ++w) std::memcpy(scales + 4 * w, column + L.word_at(kQ6ScaleWord + w, row), 4);
    for (int j = 0; j < 16; ++j) {
      ga[j * R + i] = d * static_cast<float>(scales[j]);
      gc[j * R + i] = -32.0f * ga[j * R + i];
    }
  }
}

// A super-block dtype's tile from its groups (Q4_K_R16, Q6_K_R16): each
// block column's R-row slices as the per-row decode would give them.
void BuildTileFromSuperBlocks(const DTypeTraits& tr, const RowGroupLayout& L, const uint8_t* W, size_t row_bytes,
                              int64_t r0, int64_t r1, int64_t cols, const Int8Scratch& s) {
  const int64_t nb = cols / kQK_K, blocks = cols / tr.u8_block, per_super = kQK_K / tr.u8_block;
  const int64_t R = static_cast<int64_t>(GroupRows()), halves = kRowGroup / R;
  for (int64_t r = r0, g = 0; r < r1; r += kRowGroup, g += halves) {
    const uint8_t* group = W + static_cast<size_t>(r) * row_bytes;
    for (int64_t k = 0; k < nb; ++k) {
      const uint8_t* column = group + k * L.column_bytes();
      for (int64_t h = 0; h < halves; ++h) {
        uint8_t* const gu = s.tile_u + static_cast<size_t>((g + h) * cols * R) + static_cast<size_t>(k * kQK_K * R);
        float* const ga = s.tile_a + static_cast<size_t>(((g + h) * blocks + k * per_super) * R);
        float* const gc = s.tile_c + static_cast<size_t>(((g + h) * blocks + k * per_super) * R);
        const int row0 = static_cast<int>(h * R);
        if (L.plain == DType::Q6_K) {
          Q6_KColumnTile(L, column, row0, R, gu, ga, gc);
        } else {
          Q4_KColumnTile(L, column, row0, R, gu, ga, gc);
        }
      }
    }
  }
}

// Decodes rows [r0, r1) into the interleaved tile (rows past r1 up to the
// group size are zero), a group's R rows into s.row_u first. The scratch
// pointers are held in locals: the byte stores may alias anything, and
// through `s` GCC reloaded them for every byte (BM_gemm Q8_0 2048 x 2048, 1
// thread: n = 64 71 -> 96 GFLOP/s, n = 512 100 -> 109 once that and a
// separate byte loop for the sign were gone).
void BuildTile(const DTypeTraits& tr, const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, int64_t cols,
               bool signed_q, const Int8Scratch& s) {
  if (TakesGroupsAsStored(tr) && r0 % kRowGroup == 0 && r1 % kRowGroup == 0) {
    const RowGroupLayout L = row_group_layout(tr.dtype);
    if (L.block_weights == kQK_K) {
      BuildTileFromSuperBlocks(tr, L, W, row_bytes, r0, r1, cols, s);
    } else {
      BuildTileFromGroups(tr, L, W, row_bytes, r0, r1, cols, signed_q, s);
    }
    return;
  }
  const size_t R = GroupRows();
  const int64_t nblocks = cols / tr.u8_block;
  const int64_t groups = (r1 - r0 + static_cast<int64_t>(R) - 1) / static_cast<int64_t>(R);
  uint8_t* const rows_u = s.row_u;
  float* const row_a = s.row_a;
  float* const row_c = s.row_c;
  // decode_u8 stores q + 128; the signed weights go back to q (FixedOffset
  // drops their c term), as words where they multiply words.
  const uint32_t flip = signed_q ? 0x80808080u : 0u;
  const bool words = MultipliesWords(tr);
  for (int64_t g = 0; g < groups; ++g) {
    uint8_t* const gu = s.tile_u + static_cast<size_t>(g * cols) * R * (words ? 2 : 1);
    float* const ga = s.tile_a + static_cast<size_t>(g * nblocks) * R;
    float* const gc = s.tile_c + static_cast<size_t>(g * nblocks) * R;
    for (size_t rr = 0; rr < R; ++rr) {
      const int64_t r = r0 + g * static_cast<int64_t>(R) + static_cast<int64_t>(rr);
      uint8_t* const row_u = rows_u + rr * static_cast<size_t>(cols);
      if (r < r1) {
        // A row-grouped dtype's row, gathered into its plain blocks first.
        const uint8_t* row =
            tr.row_group > 1 ? gathered_row(tr.dtype, W, cols, r) : W + static_cast<size_t>(r) * row_bytes;
        tr.decode_u8(row, cols, row_u, row_a, row_c);
      } else {
        std::memset(row_u, signed_q ? 0x80 : 0, static_cast<size_t>(cols));  // zero after the flip
        std::fill_n(row_a, nblocks, 0.0f);
        std::fill_n(row_c, nblocks, 0.0f);
      }
      if (!words) {
        uint8_t* dst = gu + rr * 4;
        for (int64_t q = 0; q < cols / 4; ++q, dst += 4 * R) {
          uint32_t quad;
          std::memcpy(&quad, row_u + 4 * q, 4);
          quad ^= flip;
          std::memcpy(dst, &quad, 4);
        }
      }
      for (int64_t b = 0; b < nblocks; ++b) {
        ga[static_cast<size_t>(b) * R + rr] = row_a[b];
        gc[static_cast<size_t>(b) * R + rr] = row_c[b];
      }
    }
    if (words) InterleaveWords(rows_u, cols, gu);
  }
}

// Calls f.template operator()<kB, kSignedW, kDepth>() with the one kernel
// instantiation per (block size, signedness, int16 depth) that serves tr.
template <class F>
auto WithKernel(const DTypeTraits& tr, F&& f) {
  constexpr int k2 = kPairSums ? 2 : 1, k4 = kPairSums ? 4 : 1, k8 = kPairSums ? 8 : 1;
  const int depth = kPairSums ? Depth(tr.u8_block, tr.u8_max, KeepsSignedQ(tr)) : 1;
  if (tr.u8_block == 16) return depth >= 2 ? f.template operator()<16, false, k2>() : f.template operator()<16, false, 1>();
  if constexpr (kPairSums) {
    if (KeepsSignedQ(tr)) return f.template operator()<32, true, 1>();
  }
  if (depth >= 8) return f.template operator()<32, false, k8>();
  if (depth >= 4) return f.template operator()<32, false, k4>();
  return f.template operator()<32, false, 1>();
}

TileFormat TileFormatOf(DType dt) {
  const DTypeTraits& tr = traits(dt);
  const int groups_per_pass = WithKernel(tr, []<int kB, bool kSignedW, int kDepth>() {
    return kPairedGroups<kB, kSignedW, kDepth> ? 2 : 1;
  });
  return {MultipliesWords(tr) ? 2 : 1, groups_per_pass};
}

// For rows [r0, r1) of W, decoded once: Y[t * rows + r] for the n tokens
// of x, and the residual products (res may be null).
void GemmInt8Rows(DType dt, const uint8_t* W, size_t row_bytes, int64_t r0, int64_t r1, const Int8Activations& x,
                  int64_t n, float* Y, int64_t rows, const Int8Residual* res, const Int8Scratch& s) {
  const DTypeTraits& tr = traits(dt);
  const int64_t cols = x.cols;
  BuildTile(tr, W, row_bytes, r0, r1, cols, KeepsSignedQ(tr), s);
  const int64_t R = static_cast<int64_t>(GroupRows());
  const int64_t nblocks = cols / tr.u8_block;
  const int weight_bytes = MultipliesWords(tr) ? 2 : 1;
  for (int64_t g0 = r0; g0 < r1;) {
    const int64_t g = (g0 - r0) / R;
    const uint8_t* u = s.tile_u + static_cast<size_t>(g * cols * R * weight_bytes);
    const float* a = s.tile_a + static_cast<size_t>(g * nblocks * R);
    const float* c = s.tile_c + static_cast<size_t>(g * nblocks * R);
    g0 += WithKernel(tr, [&]<int kB, bool kSignedW, int kDepth>() {
      return GroupsBothPasses<kB, kSignedW, kDepth>(u, a, c, x, n, Y, rows, g0, r1, res);
    });
  }
}

// One token row x (cols, a multiple of `width`: 32, or the K-quants' 256
// in decode, gemv.cc) to int8 per `width` values, with the scales and the
// sums of the rounded values per 16 and per 32. A block with a non-finite
// value gets scale NaN (and q 0), so that its outputs come out NaN as with
// fp32 arithmetic. `residual` (if not null) gets the rounding error x - q *
// scale of the spiky blocks, those whose largest |x| exceeds `spike` times
// the row's RMS, and zeros elsewhere; returns whether any block was spiky.
bool QuantizeRowInt8(const float* x, int64_t cols, int64_t width, int8_t* q, float* scale, float* sum16,
                     float* sum32, float* residual, float spike) {
  const hn::CappedTag<float, 16> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const hn::Rebind<int8_t, decltype(df)> di8;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  // One pass over the row for what needs the whole row: the sum of squares
  // (the spike level) and whether any value is non-finite (x * 0 is NaN
  // then), so that the blocks need not check it one by one. Two chains of
  // each: one FMA chain was latency-bound (cols is a multiple of 32 >= 2L).
  auto sq0 = hn::Zero(df), sq1 = hn::Zero(df), nf0 = hn::Zero(df), nf1 = hn::Zero(df);
  for (int64_t i = 0; i < cols; i += 2 * L) {
    const auto v0 = hn::LoadU(df, x + i), v1 = hn::LoadU(df, x + i + L);
    sq0 = hn::MulAdd(v0, v0, sq0);
    sq1 = hn::MulAdd(v1, v1, sq1);
    nf0 = hn::Add(nf0, hn::Mul(v0, hn::Zero(df)));
    nf1 = hn::Add(nf1, hn::Mul(v1, hn::Zero(df)));
  }
  const bool row_finite = hn::GetLane(hn::SumOfLanes(df, hn::Add(nf0, nf1))) == 0.0f;
  const float spike_level = residual != nullptr
                                ? spike * std::sqrt(hn::GetLane(hn::SumOfLanes(df, hn::Add(sq0, sq1))) /
                                                    static_cast<float>(cols))
                                : std::numeric_limits<float>::infinity();
  bool any_spiky = false;
  for (int64_t b = 0; b < cols / width; ++b) {
    const float* xb = x + width * b;
    float* rb = residual != nullptr ? residual + width * b : nullptr;
    float* s16 = sum16 + width / 16 * b;
    float* s32 = sum32 + width / 32 * b;
    auto amax = hn::Zero(df);
    for (int64_t i = 0; i < width; i += L) amax = hn::Max(amax, hn::Abs(hn::LoadU(df, xb + i)));
    // (Rare: which blocks of a row with a non-finite value hold one.)
    if (!row_finite && !std::all_of(xb, xb + width, [](float v) { return std::isfinite(v); })) {
      scale[b] = std::numeric_limits<float>::quiet_NaN();
      std::fill_n(s16, width / 16, scale[b]);
      std::fill_n(s32, width / 32, scale[b]);
      std::memset(q + width * b, 0, static_cast<size_t>(width));
      if (rb != nullptr) std::fill_n(rb, width, 0.0f);
      continue;
    }
    const float m = hn::GetLane(hn::MaxOfLanes(df, amax));
    const bool spiky = m > spike_level;
    if (rb != nullptr && !spiky) std::fill_n(rb, width, 0.0f);
    any_spiky |= spiky;
    const float d = m / 127.0f;
    const auto vd = hn::Set(df, d);
    const auto inv = hn::Set(df, d > 0.0f ? 1.0f / d : 0.0f);
    for (int64_t i32 = 0; i32 < width; i32 += 32) {
      // Rounds the 16 values at i16 (whole vectors: L <= 16) and returns
      // the sum of their q. Two named sums, not an array: GCC kept an array
      // on the stack and read both halves back as one 8-byte load, a failed
      // store forwarding that took a fifth of this function's time.
      const auto half = [&](int64_t i16) {
        auto qsum = hn::Zero(di);
        for (int64_t i = i16; i < i16 + 16; i += L) {
          const auto v = hn::LoadU(df, xb + i);
          const auto qi = hn::NearestInt(hn::Mul(v, inv));
          hn::StoreU(hn::DemoteTo(di8, qi), di8, q + width * b + i);
          if (spiky) hn::StoreU(hn::NegMulAdd(hn::ConvertTo(df, qi), vd, v), df, rb + i);
          qsum = hn::Add(qsum, qi);
        }
        return hn::GetLane(hn::SumOfLanes(di, qsum));
      };
      const int32_t low = half(i32), high = half(i32 + 16);
      s16[i32 / 16] = static_cast<float>(low) * d;
      s16[i32 / 16 + 1] = static_cast<float>(high) * d;
      s32[i32 / 32] = static_cast<float>(low + high) * d;
    }
    scale[b] = d;
  }
  return any_spiky;
}

}  // namespace ck::qgemm::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_GEMM_INT8_INL_H_
