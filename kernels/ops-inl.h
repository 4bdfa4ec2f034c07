// Per-target SIMD bodies of kernels/ops.cc, compiled once per Highway target
// (ops.cc re-includes this file through foreach_target.h). Each function
// handles whole vectors with Highway and the remainder with scalar code.

// Toggle guard: this header is included once per target on purpose.
#if defined(CK_KERNELS_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_OPS_INL_H_
#undef CK_KERNELS_OPS_INL_H_
#else
#define CK_KERNELS_OPS_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "kernels/ops.h"

HWY_BEFORE_NAMESPACE();
namespace ck {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline float Dot(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  auto acc0 = hn::Zero(d), acc1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    acc0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), acc0);
    acc1 = hn::MulAdd(hn::LoadU(d, a + i + N), hn::LoadU(d, b + i + N), acc1);
  }
  for (; i + N <= n; i += N) acc0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), acc0);
  float sum = hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1)));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

float SumOfSquares(const float* x, int64_t n) { return Dot(x, x, n); }

void SiluMul(float* out, const float* gate, const float* up, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto one = hn::Set(d, 1.0f);
  // Exp is only accurate up to ~104; past 88 exp(-g) is inf in float anyway, and silu(g) ~ 0.
  const auto limit = hn::Set(d, 88.0f);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto g = hn::LoadU(d, gate + i);
    const auto silu = hn::Div(g, hn::Add(one, hn::Exp(d, hn::Min(hn::Neg(g), limit))));
    hn::StoreU(hn::Mul(silu, hn::LoadU(d, up + i)), d, out + i);
  }
  for (; i < n; ++i) out[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

// x = exp(x - max x) / sum, in place: three vector passes (attention runs
// one per head and query, so the max and the scaling are not left scalar).
SoftmaxSums Softmax(float* x, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  auto vmax = hn::Set(d, x[0]);
  for (; i + N <= n; i += N) vmax = hn::Max(vmax, hn::LoadU(d, x + i));
  float max = hn::GetLane(hn::MaxOfLanes(d, vmax));
  for (; i < n; ++i) max = std::max(max, x[i]);
  const auto shift = hn::Set(d, max);
  auto acc = hn::Zero(d);
  for (i = 0; i + N <= n; i += N) {
    const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), shift));
    hn::StoreU(e, d, x + i);
    acc = hn::Add(acc, e);
  }
  float sum = hn::GetLane(hn::SumOfLanes(d, acc));
  for (; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  const float inv = 1.0f / sum;
  const auto vinv = hn::Set(d, inv);
  for (i = 0; i + N <= n; i += N) hn::StoreU(hn::Mul(hn::LoadU(d, x + i), vinv), d, x + i);
  for (; i < n; ++i) x[i] *= inv;
  return {max, sum};
}

}  // namespace HWY_NAMESPACE
}  // namespace ck
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_OPS_INL_H_
