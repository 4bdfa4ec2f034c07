#include "kernels/quantize.h"

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
    case DType::Q4_K:
      quantize_blocks<BlockQ4_K, kQK_K>(x, out, n, quantize_block_q4_k);
      return;
    case DType::Q6_K:
      quantize_blocks<BlockQ6_K, kQK_K>(x, out, n, quantize_block_q6_k);
      return;
    default:
      throw std::runtime_error("quantize: no quantizer for " + std::string(t.name) +
                               " (supported: F32, F16, BF16, Q8_0, Q4_K, Q6_K)");
  }
}

}  // namespace ck
