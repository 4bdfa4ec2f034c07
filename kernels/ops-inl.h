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

// exp(x) for x <= 0, the shifted scores of a softmax: Highway's Exp covers
// every float and takes about twice the instructions. x = k ln 2 + r, |r| <=
// ln(2) / 2; e^r from a degree-6 polynomial (a relative minimax fit on that
// interval, 3e-9), 2^k put into the exponent bits. Adding 1.5 * 2^23 + 127
// rounds x / ln 2 to k and leaves k + 127 in the low mantissa bits, which
// ShiftLeft<23> moves into place. x below -87.3 is clamped there (k = -126,
// the least normal exponent): exp(-87.3) ~ 1e-38 beside the row's 1.
template <class D, class V>
HWY_INLINE V ExpOfNonPositive(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V magic = hn::Set(d, 12582912.0f + 127.0f);
  x = hn::Max(x, hn::Set(d, -87.33654f));
  const V t = hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), magic);
  const V k = hn::Sub(t, magic);
  V r = hn::NegMulAdd(k, hn::Set(d, 0.693145751953125f), x);
  r = hn::NegMulAdd(k, hn::Set(d, 1.428606765330187045e-6f), r);
  V p = hn::Set(d, 0.0013818095903843641f);
  p = hn::MulAdd(p, r, hn::Set(d, 0.008368752896785736f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.041668329387903214f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.1666651964187622f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.4999999403953552f));
  p = hn::Add(hn::MulAdd(p, hn::Mul(r, r), r), hn::Set(d, 1.0f));
  return hn::Mul(p, hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(di, t))));
}

// x = exp(x - max x), in place: two vector passes (attention runs one per
// head and query, so the max is not left scalar).
SoftmaxSums SoftmaxNumerators(float* x, int64_t n) {
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
    const auto e = ExpOfNonPositive(d, hn::Sub(hn::LoadU(d, x + i), shift));
    hn::StoreU(e, d, x + i);
    acc = hn::Add(acc, e);
  }
  float sum = hn::GetLane(hn::SumOfLanes(d, acc));
  for (; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  return {max, sum};
}

}  // namespace HWY_NAMESPACE
}  // namespace ck
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_OPS_INL_H_
