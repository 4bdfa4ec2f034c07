// The unsigned-byte forms of decode_u8.h. Plain C++: the GEMM decodes each
// row once per call and reuses it for every token. Each block's bytes are
// read into a local array and its output built in another, then copied:
// stores through u (bytes may alias anything) made GCC reload the block
// byte by byte, and the decode took 6 % of SmolLM2 Q4_1's prefill.
#include "kernels/decode_u8.h"

#include <cstring>
#include <type_traits>

#include "kernels/blocks.h"
#include "kernels/fp16.h"
#include "kernels/unit_lanes.h"

namespace ck {
namespace {

// The 32-weight types Q4_0 (w = d(q - 8)), Q4_1 (w = dq + m), Q5_0 (w =
// d(q - 16)) and Q5_1 (w = dq + m): value j is the low nibble of qs[j],
// value j + 16 its high nibble; the 5-bit types add bit j of the
// little-endian u32 qh as bit 4 of value j (kLanes: Q5_0_L / Q5_1_L, bit
// q5_lanes_bit(j)).
template <class Block, bool kLanes = false>
void decode_u8_legacy(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  constexpr bool kHasMin = std::is_same_v<Block, BlockQ4_1> || std::is_same_v<Block, BlockQ5_1>;
  constexpr bool kHighBit = std::is_same_v<Block, BlockQ5_0> || std::is_same_v<Block, BlockQ5_1>;
  const auto* b = static_cast<const Block*>(blocks);
  for (int64_t k = 0; k < n / kQK; ++k, u += kQK) {
    a[k] = fp16_to_fp32(b[k].d);
    if constexpr (kHasMin) {
      c[k] = fp16_to_fp32(b[k].m);
    } else {
      c[k] = (kHighBit ? -16.0f : -8.0f) * a[k];
    }
    uint8_t qs[kQK / 2], out[kQK];
    std::memcpy(qs, b[k].qs, sizeof qs);
    for (int j = 0; j < kQK / 2; ++j) {
      out[j] = qs[j] & 0xF;
      out[j + kQK / 2] = qs[j] >> 4;
    }
    if constexpr (kHighBit) {
      uint32_t qh;
      std::memcpy(&qh, b[k].qh, 4);
      for (int j = 0; j < kQK; ++j) {
        const int bit = kLanes ? q5_lanes_bit(j) : j;
        out[j] = static_cast<uint8_t>(out[j] | ((qh >> bit) & 1u) << 4);
      }
    }
    std::memcpy(u, out, kQK);
  }
}

// Q4_K and Q5_K: sub-block j (of 32) has a = d * sc[j], c = -dmin * m[j];
// its q are the low (j even) or high (j odd) nibbles of qs[32 (j/2) ...],
// Q5_K adds bit j of qh[l] as the fifth bit. kLanes: Q4_K_L / Q5_K_L, read
// in place (unit_lanes.h): weight p = 16h + 4i + l of unit j is nibble h of
// qs[32i + 4j + l], its fifth bit bit 2i + h of qh[4j + l]. (Undoing the
// permutation on a copy of each block first cost prefill 15 %: it moves one
// nibble at a time.)
template <class Block, bool kLanes>
void decode_u8_q45_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  const auto* b = static_cast<const Block*>(blocks);
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    const float d = fp16_to_fp32(b[k].d), dmin = fp16_to_fp32(b[k].dmin);
    for (int j = 0; j < 8; ++j, u += 32) {
      uint8_t sc, m;
      k_scale_min(j, b[k].scales, &sc, &m);
      a[8 * k + j] = d * static_cast<float>(sc);
      c[8 * k + j] = -dmin * static_cast<float>(m);
      uint8_t out[32];
      // Weight p = 16h + 4i + l: four contiguous bytes per (h, i) in both layouts.
      for (int h = 0; h < 2; ++h) {
        for (int i = 0; i < 4; ++i) {
          const int p0 = 16 * h + 4 * i;
          const uint8_t* qs = kLanes ? b[k].qs + 32 * i + 4 * j : b[k].qs + 32 * (j / 2) + p0;
          const int shift = kLanes ? 4 * h : 4 * (j % 2);
          for (int l = 0; l < 4; ++l) {
            int q = (qs[l] >> shift) & 0xF;
            if constexpr (std::is_same_v<Block, BlockQ5_K>) {
              q |= (kLanes ? (b[k].qh[4 * j + l] >> (2 * i + h)) & 1 : (b[k].qh[p0 + l] >> j) & 1) << 4;
            }
            out[p0 + l] = static_cast<uint8_t>(q);
          }
        }
      }
      std::memcpy(u, out, 32);
    }
  }
}

// Q2_K and Q3_K: 16 sub-blocks of 16; in half h the value at 128h + 32j + l
// (j < 4, l < 32) is bits 2j, 2j+1 of qs[32h + l] and is in sub-block
// 8h + 2j + l/16. Q2_K: w = d*(sc & 15)*q - dmin*(sc >> 4), u = q. Q3_K: w =
// d*sc*(q - 4 + 4 hbit) with sc = q3_k_scale(s) and hbit bit 4h + j of
// hmask[l]: u = q + 4 hbit (0..7), c = -4a.
template <class Block>
void decode_u8_q23_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  constexpr bool kQ3 = std::is_same_v<Block, BlockQ3_K>;
  const auto* b = static_cast<const Block*>(blocks);
  for (int64_t k = 0; k < n / kQK_K; ++k, u += kQK_K, a += 16, c += 16) {
    const float d = fp16_to_fp32(b[k].d);
    for (int s = 0; s < 16; ++s) {
      if constexpr (kQ3) {
        a[s] = d * static_cast<float>(q3_k_scale(s, b[k].scales));
        c[s] = -4.0f * a[s];
      } else {
        a[s] = d * static_cast<float>(b[k].scales[s] & 0xF);
        c[s] = -fp16_to_fp32(b[k].dmin) * static_cast<float>(b[k].scales[s] >> 4);
      }
    }
    uint8_t qs[64], hmask[32], out[kQK_K];
    std::memcpy(qs, b[k].qs, sizeof qs);
    if constexpr (kQ3) std::memcpy(hmask, b[k].hmask, sizeof hmask);
    for (int h = 0; h < 2; ++h) {
      for (int j = 0; j < 4; ++j) {
        for (int l = 0; l < 32; ++l) {
          int q = (qs[32 * h + l] >> (2 * j)) & 3;
          if constexpr (kQ3) q |= ((hmask[l] >> (4 * h + j)) & 1) << 2;
          out[128 * h + 32 * j + l] = static_cast<uint8_t>(q);
        }
      }
    }
    std::memcpy(u, out, kQK_K);
  }
}

}  // namespace

void decode_u8_q4_0(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_legacy<BlockQ4_0>(blocks, n, u, a, c);
}
void decode_u8_q4_1(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_legacy<BlockQ4_1>(blocks, n, u, a, c);
}
void decode_u8_q5_0(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_legacy<BlockQ5_0>(blocks, n, u, a, c);
}
void decode_u8_q5_1(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_legacy<BlockQ5_1>(blocks, n, u, a, c);
}
void decode_u8_q5_0l(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_legacy<BlockQ5_0, true>(blocks, n, u, a, c);
}
void decode_u8_q5_1l(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_legacy<BlockQ5_1, true>(blocks, n, u, a, c);
}
void decode_u8_q2_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_q23_k<BlockQ2_K>(blocks, n, u, a, c);
}
void decode_u8_q3_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_q23_k<BlockQ3_K>(blocks, n, u, a, c);
}
void decode_u8_q4_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_q45_k<BlockQ4_K, false>(blocks, n, u, a, c);
}
void decode_u8_q5_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_q45_k<BlockQ5_K, false>(blocks, n, u, a, c);
}
void decode_u8_q4_kl(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_q45_k<BlockQ4_K, true>(blocks, n, u, a, c);
}
void decode_u8_q5_kl(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_q45_k<BlockQ5_K, true>(blocks, n, u, a, c);
}

void decode_u8_q8_0(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  const auto* b = static_cast<const BlockQ8_0*>(blocks);
  for (int64_t k = 0; k < n / kQK; ++k, u += kQK) {
    a[k] = fp16_to_fp32(b[k].d);
    c[k] = -128.0f * a[k];
    uint8_t out[kQK];
    std::memcpy(out, b[k].qs, kQK);
    for (int j = 0; j < kQK; ++j) out[j] = static_cast<uint8_t>(out[j] ^ 0x80);  // q + 128
    std::memcpy(u, out, kQK);
  }
}

// IQ4_NL: Q4_0's nibble layout, w = d * kIQ4Values[nibble]; as Q8_0, u =
// value + 128. IQ4_XS: eight such blocks per super-block, a = d * scale.
namespace {
void codebook_u8(const uint8_t* qs, uint8_t* u) {
  for (int j = 0; j < kQK / 2; ++j) {
    u[j] = static_cast<uint8_t>(kIQ4Values[qs[j] & 0xF] + 128);
    u[j + kQK / 2] = static_cast<uint8_t>(kIQ4Values[qs[j] >> 4] + 128);
  }
}
}  // namespace

void decode_u8_iq4_nl(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  const auto* b = static_cast<const BlockIQ4_NL*>(blocks);
  for (int64_t k = 0; k < n / kQK; ++k, u += kQK) {
    a[k] = fp16_to_fp32(b[k].d);
    c[k] = -128.0f * a[k];
    codebook_u8(b[k].qs, u);
  }
}

void decode_u8_iq4_xs(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  const auto* b = static_cast<const BlockIQ4_XS*>(blocks);
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    const float d = fp16_to_fp32(b[k].d);
    for (int s = 0; s < kQK_K / kQK; ++s, u += kQK, ++a, ++c) {
      *a = d * static_cast<float>(iq4_xs_scale(s, b[k]));
      *c = -128.0f * *a;
      codebook_u8(b[k].qs + s * kQK / 2, u);
    }
  }
}

// Q6_K: 16 sub-blocks of 16, w = d * scales[s] * (q - 32). In half h the
// value at 128h + 32 quarter + l takes the nibble (quarter / 2) of
// ql[64h + 32 (quarter % 2) + l] and bits 2 quarter of qh[32h + l].
// kLanes: Q6_K_L, read in place (unit_lanes.h): weight p = 16h + 4i + l of
// unit j takes nibble h of ql[32i + 4j + l] and bits 2(i % 2) + 4h of
// qh[32(i / 2) + 4j + l]; sub-block s's scale is scales[8(s % 2) + s / 2].
namespace {
template <bool kLanes>
void decode_u8_q6_k_form(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  const auto* b = static_cast<const BlockQ6_K*>(blocks);
  for (int64_t k = 0; k < n / kQK_K; ++k, u += kQK_K) {
    const float d = fp16_to_fp32(b[k].d);
    for (int s = 0; s < 16; ++s) {
      a[16 * k + s] = d * static_cast<float>(b[k].scales[kLanes ? 8 * (s % 2) + s / 2 : s]);
      c[16 * k + s] = -32.0f * a[16 * k + s];
    }
    uint8_t ql[128], qh[64], out[kQK_K];
    std::memcpy(ql, b[k].ql, sizeof ql);
    std::memcpy(qh, b[k].qh, sizeof qh);
    if constexpr (kLanes) {
      // 32 bytes of ql and qh at a time, vector i's first (h = 0) or second
      // halves of the units, then each unit's four to its place: element by
      // element the decode did not vectorize and prefill lost 40 %.
      for (int i = 0; i < 4; ++i) {
        for (int h = 0; h < 2; ++h) {
          uint8_t v[32];
          for (int e = 0; e < 32; ++e) {
            v[e] = static_cast<uint8_t>(((ql[32 * i + e] >> (4 * h)) & 0xF) |
                                        ((qh[32 * (i / 2) + e] >> (2 * (i % 2) + 4 * h)) & 3) << 4);
          }
          for (int j = 0; j < 8; ++j) std::memcpy(out + 32 * j + 16 * h + 4 * i, v + 4 * j, 4);
        }
      }
    } else {
      for (int h = 0; h < 2; ++h) {
        for (int quarter = 0; quarter < 4; ++quarter) {
          for (int l = 0; l < 32; ++l) {
            const int low = (ql[64 * h + 32 * (quarter % 2) + l] >> (4 * (quarter / 2))) & 0xF;
            const int high = (qh[32 * h + l] >> (2 * quarter)) & 3;
            out[128 * h + 32 * quarter + l] = static_cast<uint8_t>(low | high << 4);
          }
        }
      }
    }
    std::memcpy(u, out, kQK_K);
  }
}
}  // namespace

void decode_u8_q6_k(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_q6_k_form<false>(blocks, n, u, a, c);
}
void decode_u8_q6_kl(const void* blocks, int64_t n, uint8_t* u, float* a, float* c) {
  decode_u8_q6_k_form<true>(blocks, n, u, a, c);
}

}  // namespace ck
