// Reference dequantizers of the K-quants (256-weight super-blocks). The
// products are rounded in gguf-py's order: the sub-block scale first
// (d * sc), then its product with q, then the min term subtracted.
#include "kernels/blocks.h"
#include "kernels/dequantize_ref.h"
#include "kernels/fp16.h"

namespace ck::ref {

// 16 sub-blocks of 16; sub-block s = 8g + 2*shift + half of the 32 bytes.
void dequantize_q2_k(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ2_K*>(src);
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    const float d = fp16_to_fp32(b[k].d);
    const float dmin = fp16_to_fp32(b[k].dmin);
    for (int g = 0; g < 2; ++g) {
      for (int shift = 0; shift < 4; ++shift) {
        for (int l = 0; l < 32; ++l) {
          const int s = 8 * g + 2 * shift + l / 16;
          const float dl = d * static_cast<float>(b[k].scales[s] & 0xF);
          const float ml = dmin * static_cast<float>(b[k].scales[s] >> 4);
          const int q = (b[k].qs[32 * g + l] >> (2 * shift)) & 3;
          *out++ = dl * static_cast<float>(q) - ml;
        }
      }
    }
  }
}

// 6-bit signed scales (q3_k_scale). A weight subtracts 4 when its hmask bit
// is clear.
void dequantize_q3_k(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ3_K*>(src);
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    const float d = fp16_to_fp32(b[k].d);
    float dl[16];
    for (int j = 0; j < 16; ++j) dl[j] = d * static_cast<float>(q3_k_scale(j, b[k].scales));
    for (int g = 0; g < 2; ++g) {
      for (int shift = 0; shift < 4; ++shift) {
        for (int l = 0; l < 32; ++l) {
          const int s = 8 * g + 2 * shift + l / 16;
          const int ql = (b[k].qs[32 * g + l] >> (2 * shift)) & 3;
          const int hbit = (b[k].hmask[l] >> (4 * g + shift)) & 1;
          *out++ = dl[s] * static_cast<float>(ql - (hbit ? 0 : 4));
        }
      }
    }
  }
}

void dequantize_q4_k(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ4_K*>(src);
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    const float d = fp16_to_fp32(b[k].d);
    const float dmin = fp16_to_fp32(b[k].dmin);
    for (int j = 0; j < 8; ++j) {
      uint8_t sc, m;
      k_scale_min(j, b[k].scales, &sc, &m);
      const float dl = d * static_cast<float>(sc);
      const float ml = dmin * static_cast<float>(m);
      const uint8_t* qs = b[k].qs + 32 * (j / 2);
      const int shift = 4 * (j % 2);
      for (int l = 0; l < 32; ++l) *out++ = dl * static_cast<float>((qs[l] >> shift) & 0xF) - ml;
    }
  }
}

void dequantize_q5_k(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ5_K*>(src);
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    const float d = fp16_to_fp32(b[k].d);
    const float dmin = fp16_to_fp32(b[k].dmin);
    for (int j = 0; j < 8; ++j) {
      uint8_t sc, m;
      k_scale_min(j, b[k].scales, &sc, &m);
      const float dl = d * static_cast<float>(sc);
      const float ml = dmin * static_cast<float>(m);
      const uint8_t* qs = b[k].qs + 32 * (j / 2);
      const int shift = 4 * (j % 2);
      for (int l = 0; l < 32; ++l) {
        const int q = ((qs[l] >> shift) & 0xF) | (((b[k].qh[l] >> j) & 1) << 4);
        *out++ = dl * static_cast<float>(q) - ml;
      }
    }
  }
}

// Two halves of 128; in half h the weight at 32 * (2 * shift + c) + l takes
// ql[64h + 32c + l] >> 4 * shift and bits qh[32h + l] >> 2 * (2 * shift + c).
void dequantize_q6_k(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ6_K*>(src);
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    const float d = fp16_to_fp32(b[k].d);
    for (int h = 0; h < 2; ++h) {
      for (int quarter = 0; quarter < 4; ++quarter) {
        const int shift = quarter / 2;
        const int c = quarter % 2;
        for (int l = 0; l < 32; ++l) {
          const int i = 128 * h + 32 * quarter + l;
          const int ql = (b[k].ql[64 * h + 32 * c + l] >> (4 * shift)) & 0xF;
          const int qh = (b[k].qh[32 * h + l] >> (2 * quarter)) & 3;
          const float dl = d * static_cast<float>(b[k].scales[i / 16]);
          *out++ = dl * static_cast<float>((ql | (qh << 4)) - 32);
        }
      }
    }
  }
}

}  // namespace ck::ref
