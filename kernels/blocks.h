// Block structs that match the bytes of ggml's quantized types (see
// /work/shared/docs/FORMATS.md). Scales are IEEE half stored as uint16_t.
#pragma once
#include <cstdint>

namespace ck {

inline constexpr int kQK = 32;    // weights per block of the 32-weight types
inline constexpr int kQK_K = 256;  // weights per super-block of the K-quants

struct BlockQ4_0 { uint16_t d; uint8_t qs[kQK / 2]; };
struct BlockQ4_1 { uint16_t d; uint16_t m; uint8_t qs[kQK / 2]; };
struct BlockQ5_0 { uint16_t d; uint8_t qh[4]; uint8_t qs[kQK / 2]; };
struct BlockQ5_1 { uint16_t d; uint16_t m; uint8_t qh[4]; uint8_t qs[kQK / 2]; };
struct BlockQ8_0 { uint16_t d; int8_t qs[kQK]; };
struct BlockIQ4_NL { uint16_t d; uint8_t qs[kQK / 2]; };
// IQ4_XS: 8 sub-blocks of 32 with 6-bit scales (low nibbles in scales_l,
// top two bits in scales_h), IQ4_NL's nibble layout within each.
struct BlockIQ4_XS { uint16_t d; uint16_t scales_h; uint8_t scales_l[kQK_K / 64]; uint8_t qs[kQK_K / 2]; };
struct BlockQ2_K { uint8_t scales[kQK_K / 16]; uint8_t qs[kQK_K / 4]; uint16_t d; uint16_t dmin; };
struct BlockQ3_K { uint8_t hmask[kQK_K / 8]; uint8_t qs[kQK_K / 4]; uint8_t scales[12]; uint16_t d; };
struct BlockQ4_K { uint16_t d; uint16_t dmin; uint8_t scales[12]; uint8_t qs[kQK_K / 2]; };
struct BlockQ5_K { uint16_t d; uint16_t dmin; uint8_t scales[12]; uint8_t qh[kQK_K / 8]; uint8_t qs[kQK_K / 2]; };
// Q4_K and Q5_K with the units in the lanes (unit_lanes.h): the same bytes,
// qs (and qh) permuted; types of their own so that templates tell them apart.
struct BlockQ4_KL : BlockQ4_K {};
struct BlockQ5_KL : BlockQ5_K {};
struct BlockQ6_K { uint8_t ql[kQK_K / 2]; uint8_t qh[kQK_K / 4]; int8_t scales[kQK_K / 16]; uint16_t d; };
// Q6_K with its sub-blocks in the lanes (unit_lanes.h): ql, qh and scales
// permuted.
struct BlockQ6_KL : BlockQ6_K {};
// Q5_0 and Q5_1 with qh transposed (unit_lanes.h).
struct BlockQ5_0L : BlockQ5_0 {};
struct BlockQ5_1L : BlockQ5_1 {};

static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockIQ4_NL) == 18);
static_assert(sizeof(BlockIQ4_XS) == 136);
static_assert(sizeof(BlockQ2_K) == 84);
static_assert(sizeof(BlockQ3_K) == 110);
static_assert(sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210);
static_assert(sizeof(BlockQ4_KL) == 144 && sizeof(BlockQ5_KL) == 176 && sizeof(BlockQ6_KL) == 210);
static_assert(sizeof(BlockQ5_0L) == 22 && sizeof(BlockQ5_1L) == 24);

// IQ4_NL's codebook: a 4-bit index picks one of these non-uniform levels
// (ggml's kvalues_iq4nl), w = d * value. Aligned: the GEMV loads it as one
// 16-byte shuffle table.
alignas(16) inline constexpr int8_t kIQ4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K / Q5_K block.
inline void k_scale_min(int j, const uint8_t* scales, uint8_t* sc, uint8_t* m) {
  if (j < 4) {
    *sc = scales[j] & 63;
    *m = scales[j + 4] & 63;
  } else {
    *sc = static_cast<uint8_t>((scales[j + 4] & 0xF) | ((scales[j - 4] >> 6) << 4));
    *m = static_cast<uint8_t>((scales[j + 4] >> 4) | ((scales[j] >> 6) << 4));
  }
}

// The signed 6-bit scale of sub-block s (0..15) of a Q3_K block: the low
// nibble from scales[s % 8] (s < 8 low, else high), the top two bits from
// scales[8 + s % 4] at bit 2 * (s / 4), minus 32.
inline int q3_k_scale(int s, const uint8_t* scales) {
  const int lo = (s < 8 ? scales[s] : scales[s - 8] >> 4) & 0xF;
  const int hi = (scales[8 + s % 4] >> (2 * (s / 4))) & 3;
  return (lo | hi << 4) - 32;
}

// The signed scale of sub-block s (0..7) of an IQ4_XS block: the nibble s % 2
// of scales_l[s / 2] below bits 2s, 2s+1 of scales_h, minus 32.
inline int iq4_xs_scale(int s, const BlockIQ4_XS& b) {
  const int lo = (b.scales_l[s / 2] >> (4 * (s % 2))) & 0xF;
  const int hi = (b.scales_h >> (2 * s)) & 3;
  return (lo | hi << 4) - 32;
}

}  // namespace ck
