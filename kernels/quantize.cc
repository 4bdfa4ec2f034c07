#include "kernels/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/blocks.h"
#include "kernels/fp16.h"
#include "kernels/quantize_kquant.h"

namespace ck {
namespace {

void check_finite(const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) {
      throw std::runtime_error("quantize: input value " + std::to_string(i) + " is not finite");
    }
  }
}

void quantize_block_q8_0(const float* x, BlockQ8_0* out) {
  float amax = 0.0f;
  for (int i = 0; i < kQK; ++i) amax = std::fmax(amax, std::fabs(x[i]));
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  out->d = fp32_to_fp16(d);
  for (int i = 0; i < kQK; ++i) out->qs[i] = static_cast<int8_t>(std::round(x[i] * id));
}

// Q4_0, Q4_1, Q5_0 and Q5_1 as ggml's reference quantizers: q = min(max_q,
// trunc((x - offset) * id + bias)); value j of a block goes to the low
// nibble of byte j, value j + 16 to its high nibble, and bit 4 of value j to
// bit j of the returned u32 (the 5-bit types' qh). (x - 0 is x exactly, so
// Q4_0's offset of 0 keeps ggml's x * id + 8.5.)
uint32_t pack_quants(const float* x, float offset, float id, float bias, int max_q, uint8_t* qs) {
  uint32_t qh = 0;
  for (int j = 0; j < kQK / 2; ++j) {
    const int lo = std::min(max_q, static_cast<int>((x[j] - offset) * id + bias));
    const int hi = std::min(max_q, static_cast<int>((x[j + kQK / 2] - offset) * id + bias));
    qs[j] = static_cast<uint8_t>((lo & 0xF) | (hi & 0xF) << 4);
    qh |= static_cast<uint32_t>(lo >> 4) << j | static_cast<uint32_t>(hi >> 4) << (j + kQK / 2);
  }
  return qh;
}

// Q4_0 / Q5_0: w = d * (q - half) with d = (the value of largest magnitude)
// / -half, so that value maps to q = 0 exactly. Q4_1 / Q5_1: w = d * q + m
// over [min, max] in 2 half - 1 steps.
template <class Block>
void quantize_block_legacy(const float* x, Block* out) {
  constexpr bool kHasMin = std::is_same_v<Block, BlockQ4_1> || std::is_same_v<Block, BlockQ5_1>;
  constexpr bool kHighBit = std::is_same_v<Block, BlockQ5_0> || std::is_same_v<Block, BlockQ5_1>;
  constexpr int kHalf = kHighBit ? 16 : 8;
  float d, offset = 0.0f, bias;
  if constexpr (kHasMin) {
    float min = x[0], max = x[0];
    for (int i = 1; i < kQK; ++i) {
      min = std::min(min, x[i]);
      max = std::max(max, x[i]);
    }
    d = (max - min) / static_cast<float>(2 * kHalf - 1);
    offset = min;
    bias = 0.5f;
    out->m = fp32_to_fp16(min);
  } else {
    float amax = 0.0f, max = 0.0f;
    for (int i = 0; i < kQK; ++i) {
      if (amax < std::fabs(x[i])) {
        amax = std::fabs(x[i]);
        max = x[i];
      }
    }
    d = max / -static_cast<float>(kHalf);
    bias = static_cast<float>(kHalf) + 0.5f;
  }
  out->d = fp32_to_fp16(d);
  const uint32_t qh = pack_quants(x, offset, d != 0.0f ? 1.0f / d : 0.0f, bias, 2 * kHalf - 1, out->qs);
  if constexpr (kHighBit) std::memcpy(out->qh, &qh, 4);
}

// BF16 rounding as ggml_compute_fp32_to_bf16 (inputs are finite here).
uint16_t fp32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + (0x7FFFu + ((u >> 16) & 1u))) >> 16);
}

template <typename Block, int kBlockSize>
void quantize_blocks(const float* x, void* out, int64_t n, void (*fn)(const float*, Block*)) {
  auto* blocks = static_cast<Block*>(out);
  const int64_t nb = n / kBlockSize;
#pragma omp parallel for schedule(static) if (nb >= 1024)
  for (int64_t b = 0; b < nb; ++b) fn(x + b * kBlockSize, blocks + b);
}

}  // namespace

void quantize(DType dt, const float* x, void* out, int64_t n) {
  const DTypeTraits& t = traits(dt);
  if (n < 0 || n % t.block_size != 0) {
    throw std::runtime_error("quantize: " + std::string(t.name) + " needs a multiple of " +
                             std::to_string(t.block_size) + " values, got " + std::to_string(n));
  }
  check_finite(x, n);
  switch (dt) {
    case DType::F32:
      std::memcpy(out, x, static_cast<size_t>(n) * sizeof(float));
      return;
    case DType::F16:
      for (int64_t i = 0; i < n; ++i) static_cast<uint16_t*>(out)[i] = fp32_to_fp16(x[i]);
      return;
    case DType::BF16:
      for (int64_t i = 0; i < n; ++i) static_cast<uint16_t*>(out)[i] = fp32_to_bf16(x[i]);
      return;
    case DType::Q8_0:
      quantize_blocks<BlockQ8_0, kQK>(x, out, n, quantize_block_q8_0);
      return;
    case DType::Q4_0:
      quantize_blocks<BlockQ4_0, kQK>(x, out, n, quantize_block_legacy<BlockQ4_0>);
      return;
    case DType::Q4_1:
      quantize_blocks<BlockQ4_1, kQK>(x, out, n, quantize_block_legacy<BlockQ4_1>);
      return;
    case DType::Q5_0:
      quantize_blocks<BlockQ5_0, kQK>(x, out, n, quantize_block_legacy<BlockQ5_0>);
      return;
    case DType::Q5_1:
      quantize_blocks<BlockQ5_1, kQK>(x, out, n, quantize_block_legacy<BlockQ5_1>);
      return;
    case DType::Q4_K:
      quantize_blocks<BlockQ4_K, kQK_K>(x, out, n, quantize_block_q4_k);
      return;
    case DType::Q5_K:
      quantize_blocks<BlockQ5_K, kQK_K>(x, out, n, quantize_block_q5_k);
      return;
    case DType::Q6_K:
      quantize_blocks<BlockQ6_K, kQK_K>(x, out, n, quantize_block_q6_k);
      return;
    default:
      throw std::runtime_error("quantize: no quantizer for " + std::string(t.name) +
                               " (supported: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K)");
  }
}

}  // namespace ck
