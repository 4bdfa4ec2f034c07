#include "kernels/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

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

// Q4_0 and Q4_1 as ggml's reference quantizers: q = min(15, trunc((x -
// offset) * id + bias)); value j of a block goes to the low nibble of byte j,
// value j + 16 to its high nibble. (x - 0 is x exactly, so Q4_0's offset of
// 0 keeps ggml's x * id + 8.5.)
void pack_nibbles(const float* x, float offset, float id, float bias, uint8_t* qs) {
  for (int j = 0; j < kQK / 2; ++j) {
    const int lo = std::min(15, static_cast<int>((x[j] - offset) * id + bias));
    const int hi = std::min(15, static_cast<int>((x[j + kQK / 2] - offset) * id + bias));
    qs[j] = static_cast<uint8_t>(lo | hi << 4);
  }
}

// Q4_0: w = d * (q - 8) with d = (the value of largest magnitude) / -8, so
// that value maps to q = 0 exactly.
void quantize_block_q4_0(const float* x, BlockQ4_0* out) {
  float amax = 0.0f, max = 0.0f;
  for (int i = 0; i < kQK; ++i) {
    if (amax < std::fabs(x[i])) {
      amax = std::fabs(x[i]);
      max = x[i];
    }
  }
  const float d = max / -8.0f;
  out->d = fp32_to_fp16(d);
  pack_nibbles(x, 0.0f, d != 0.0f ? 1.0f / d : 0.0f, 8.5f, out->qs);
}

// Q4_1: w = d * q + m over [min, max] in 15 steps.
void quantize_block_q4_1(const float* x, BlockQ4_1* out) {
  float min = x[0], max = x[0];
  for (int i = 1; i < kQK; ++i) {
    min = std::min(min, x[i]);
    max = std::max(max, x[i]);
  }
  const float d = (max - min) / 15.0f;
  out->d = fp32_to_fp16(d);
  out->m = fp32_to_fp16(min);
  pack_nibbles(x, min, d != 0.0f ? 1.0f / d : 0.0f, 0.5f, out->qs);
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
      quantize_blocks<BlockQ4_0, kQK>(x, out, n, quantize_block_q4_0);
      return;
    case DType::Q4_1:
      quantize_blocks<BlockQ4_1, kQK>(x, out, n, quantize_block_q4_1);
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
                               " (supported: F32, F16, BF16, Q4_0, Q4_1, Q8_0, Q4_K, Q5_K, Q6_K)");
  }
}

}  // namespace ck
