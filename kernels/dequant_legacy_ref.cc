// Reference dequantizers of the 32-weight block types and of IQ4_XS, whose
// super-block is eight of them with 6-bit scales (IQ4_NL's and IQ4_XS's
// nibbles index kIQ4Values). In every 32 weights the low
// nibbles of qs[0..15] are weights 0..15 and the high nibbles weights 16..31;
// the 5-bit types take bit i of the little-endian u32 qh as bit 4 of weight i.
#include <cstring>

#include "kernels/blocks.h"
#include "kernels/dequantize_ref.h"
#include "kernels/fp16.h"

namespace ck::ref {
namespace {

int nibble(const uint8_t* qs, int i) { return i < kQK / 2 ? qs[i] & 0xF : qs[i - kQK / 2] >> 4; }

uint32_t load_qh(const uint8_t* qh) {
  uint32_t v;
  std::memcpy(&v, qh, 4);
  return v;
}

}  // namespace

void dequantize_q4_0(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ4_0*>(src);
  for (int64_t k = 0; k < n / kQK; ++k, out += kQK) {
    const float d = fp16_to_fp32(b[k].d);
    for (int i = 0; i < kQK; ++i) out[i] = d * static_cast<float>(nibble(b[k].qs, i) - 8);
  }
}

void dequantize_q4_1(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ4_1*>(src);
  for (int64_t k = 0; k < n / kQK; ++k, out += kQK) {
    const float d = fp16_to_fp32(b[k].d);
    const float m = fp16_to_fp32(b[k].m);
    for (int i = 0; i < kQK; ++i) out[i] = d * static_cast<float>(nibble(b[k].qs, i)) + m;
  }
}

void dequantize_q5_0(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ5_0*>(src);
  for (int64_t k = 0; k < n / kQK; ++k, out += kQK) {
    const float d = fp16_to_fp32(b[k].d);
    const uint32_t qh = load_qh(b[k].qh);
    for (int i = 0; i < kQK; ++i) {
      const int q = nibble(b[k].qs, i) | static_cast<int>(((qh >> i) & 1u) << 4);
      out[i] = d * static_cast<float>(q - 16);
    }
  }
}

void dequantize_q5_1(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ5_1*>(src);
  for (int64_t k = 0; k < n / kQK; ++k, out += kQK) {
    const float d = fp16_to_fp32(b[k].d);
    const float m = fp16_to_fp32(b[k].m);
    const uint32_t qh = load_qh(b[k].qh);
    for (int i = 0; i < kQK; ++i) {
      const int q = nibble(b[k].qs, i) | static_cast<int>(((qh >> i) & 1u) << 4);
      out[i] = d * static_cast<float>(q) + m;
    }
  }
}

void dequantize_q8_0(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockQ8_0*>(src);
  for (int64_t k = 0; k < n / kQK; ++k, out += kQK) {
    const float d = fp16_to_fp32(b[k].d);
    for (int i = 0; i < kQK; ++i) out[i] = static_cast<float>(b[k].qs[i]) * d;
  }
}

void dequantize_iq4_nl(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockIQ4_NL*>(src);
  for (int64_t k = 0; k < n / kQK; ++k, out += kQK) {
    const float d = fp16_to_fp32(b[k].d);
    for (int i = 0; i < kQK; ++i) out[i] = d * static_cast<float>(kIQ4Values[nibble(b[k].qs, i)]);
  }
}

// gguf-py's order: dl = d * scale first, then dl * value.
void dequantize_iq4_xs(const void* src, float* out, int64_t n) {
  const auto* b = static_cast<const BlockIQ4_XS*>(src);
  for (int64_t k = 0; k < n / kQK_K; ++k) {
    const float d = fp16_to_fp32(b[k].d);
    for (int s = 0; s < kQK_K / kQK; ++s, out += kQK) {
      const float dl = d * static_cast<float>(iq4_xs_scale(s, b[k]));
      const uint8_t* qs = b[k].qs + s * kQK / 2;
      for (int i = 0; i < kQK; ++i) out[i] = dl * static_cast<float>(kIQ4Values[nibble(qs, i)]);
    }
  }
}

}  // namespace ck::ref
