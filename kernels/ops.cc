#include "kernels/ops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/ops-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/ops-inl.h"

#if HWY_ONCE
namespace ck {

HWY_EXPORT(SumOfSquares);
HWY_EXPORT(SiluMul);
HWY_EXPORT(SoftmaxNumerators);

void rmsnorm(float* out, const float* x, const float* weight, int64_t n, float eps) {
  const float ss = HWY_DYNAMIC_DISPATCH(SumOfSquares)(x, n);
  const float inv = 1.0f / std::sqrt(ss / static_cast<float>(n) + eps);
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * inv * weight[i];
}

SoftmaxSums softmax_numerators(float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(SoftmaxNumerators)(x, n); }

void silu_mul(float* out, const float* gate, const float* up, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SiluMul)(out, gate, up, n);
}

void gelu_tanh_mul(float* out, const float* gate, const float* up, int64_t n) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  for (int64_t i = 0; i < n; ++i) {
    const float g = gate[i];
    out[i] = 0.5f * g * (1.0f + std::tanh(kSqrt2OverPi * g * (1.0f + 0.044715f * g * g))) * up[i];
  }
}

void add(float* x, const float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += y[i];
}

RopeTable::RopeTable(int64_t n_positions, int rope_dim, const RopeSpec& spec)
    : n_positions_(n_positions), rope_dim_(rope_dim) {
  if (n_positions <= 0 || rope_dim <= 0 || rope_dim % 2 != 0 || !(spec.base > 0.0f) || !(spec.scale > 0.0f) ||
      !(spec.magnitude > 0.0f)) {
    throw std::runtime_error("RopeTable: need positions > 0, an even rope_dim > 0, base, scale and magnitude > 0 "
                             "(got " + std::to_string(n_positions) + ", " + std::to_string(rope_dim) + ", " +
                             std::to_string(spec.base) + ", " + std::to_string(spec.scale) + ", " +
                             std::to_string(spec.magnitude) + ")");
  }
  const int half = rope_dim / 2;
  cos_.resize(static_cast<size_t>(n_positions) * half);
  sin_.resize(cos_.size());
  for (int i = 0; i < half; ++i) {
    // Angles in double: at position 8000 a float angle would already be off by ~1e-3 rad.
    const double divisor = spec.divisors != nullptr ? spec.divisors[i] : 1.0;
    if (!(divisor > 0.0)) {
      throw std::runtime_error("RopeTable: frequency divisor " + std::to_string(i) + " is not positive");
    }
    const double inv_freq = spec.scale * std::pow(static_cast<double>(spec.base), -2.0 * i / rope_dim) / divisor;
    for (int64_t p = 0; p < n_positions; ++p) {
      const double angle = static_cast<double>(p) * inv_freq;
      cos_[p * half + i] = static_cast<float>(spec.magnitude * std::cos(angle));
      sin_[p * half + i] = static_cast<float>(spec.magnitude * std::sin(angle));
    }
  }
}

void rope(float* x, int n_heads, int head_dim, const RopeTable& table, int64_t pos, bool neox) {
  if (pos < 0 || pos >= table.n_positions()) {
    throw std::runtime_error("rope: position " + std::to_string(pos) + " outside the table's " +
                             std::to_string(table.n_positions()));
  }
  const int half = table.rope_dim() / 2;
  const float* c = table.cos(pos);
  const float* s = table.sin(pos);
  // (a, b) -> (a cos - b sin, a sin + b cos); only the pairing differs.
  const int a_step = neox ? 1 : 2;
  const int b_offset = neox ? half : 1;
  for (int h = 0; h < n_heads; ++h) {
    float* v = x + static_cast<int64_t>(h) * head_dim;
    for (int i = 0; i < half; ++i) {
      float* a = v + i * a_step;
      float* b = a + b_offset;
      const float a0 = *a, b0 = *b;
      *a = a0 * c[i] - b0 * s[i];
      *b = a0 * s[i] + b0 * c[i];
    }
  }
}

}  // namespace ck
#endif  // HWY_ONCE
