// Per-target bodies of kernels/attention.cc (re-included once per Highway
// target through foreach_target.h).

#if defined(CK_KERNELS_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CK_KERNELS_ATTENTION_INL_H_
#undef CK_KERNELS_ATTENTION_INL_H_
#else
#define CK_KERNELS_ATTENTION_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>
#include <iterator>
#include <type_traits>

#include "kernels/attention.h"
#include "kernels/ops.h"

HWY_BEFORE_NAMESPACE();
namespace ck::attn::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Independent FMA chains per step: a chain waits four cycles for its last
// FMA and two FMAs issue per cycle, so about eight to twelve chains keep the
// units busy. A group of kQ heads gets kUnroll vectors (of positions or of
// dimensions) per step.
template <int kQ>
constexpr int kUnroll = kQ <= 3 ? 4 : kQ == 4 ? 3 : kQ <= 6 ? 2 : 1;

// out[g * out_stride + c] = factor * sum_{r < n} s[g * s_stride + r] *
// m[r * m_stride + c] for g < kQ, c < cols: kQ broadcast scalars against
// kUnroll vectors of m's columns per step, so each load of m serves every
// head. Both halves of attention have this shape: the scores (s = the
// queries, m = the transposed keys, columns = positions) and the weighted sum
// of the values (s = the softmax rows, m = the values, columns = dimensions).
template <int kQ>
void BroadcastProducts(const float* s, int64_t s_stride, const float* m, int64_t m_stride, int64_t n, int64_t cols,
                       float factor, float* out, int64_t out_stride) {
  constexpr int U = kUnroll<kQ>;
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const VF vfactor = hn::Set(df, factor);
  int64_t c = 0;
  auto step = [&](auto unroll) {
    constexpr int kU = decltype(unroll)::value;
    VF acc[kQ][kU];
    for (int g = 0; g < kQ; ++g)
      for (int u = 0; u < kU; ++u) acc[g][u] = hn::Zero(df);
    for (int64_t r = 0; r < n; ++r) {
      VF col[kU];
      for (int u = 0; u < kU; ++u) col[u] = hn::LoadU(df, m + r * m_stride + c + u * N);
      for (int g = 0; g < kQ; ++g) {
        const VF sr = hn::Set(df, s[g * s_stride + r]);
        for (int u = 0; u < kU; ++u) acc[g][u] = hn::MulAdd(sr, col[u], acc[g][u]);
      }
    }
    for (int g = 0; g < kQ; ++g)
      for (int u = 0; u < kU; ++u) hn::StoreU(hn::Mul(acc[g][u], vfactor), df, out + g * out_stride + c + u * N);
    c += kU * N;
  };
  while (c + U * N <= cols) step(std::integral_constant<int, U>());
  while (c + N <= cols) step(std::integral_constant<int, 1>());
#if HWY_TARGET <= HWY_AVX2
  // The last partial vector (a causal row's last keys), masked: AVX2 and
  // AVX-512 load and store only the lanes in the mask.
  if (c < cols) {
    const auto valid = hn::FirstN(df, static_cast<size_t>(cols - c));
    VF acc[kQ];
    for (int g = 0; g < kQ; ++g) acc[g] = hn::Zero(df);
    for (int64_t r = 0; r < n; ++r) {
      const VF col = hn::MaskedLoad(valid, df, m + r * m_stride + c);
      for (int g = 0; g < kQ; ++g) acc[g] = hn::MulAdd(hn::Set(df, s[g * s_stride + r]), col, acc[g]);
    }
    for (int g = 0; g < kQ; ++g) hn::BlendedStore(hn::Mul(acc[g], vfactor), valid, df, out + g * out_stride + c);
  }
#else
  // (Elsewhere Highway emulates masked loads with whole ones, which could
  // read past the end.)
  for (; c < cols; ++c) {
    for (int g = 0; g < kQ; ++g) {
      float sum = 0.0f;
      for (int64_t r = 0; r < n; ++r) sum += s[g * s_stride + r] * m[r * m_stride + c];
      out[g * out_stride + c] = sum * factor;
    }
  }
#endif
}

using ProductsFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, int64_t, float, float*, int64_t);

void AttendGroup(const float* q, int64_t q_stride, int nq, const float* kt, int64_t kt_stride, const float* v,
                 int64_t n_keys, int head_dim, float scale, float* scores, float* out, int64_t out_stride) {
  static constexpr ProductsFn kProducts[] = {BroadcastProducts<1>, BroadcastProducts<2>, BroadcastProducts<3>,
                                             BroadcastProducts<4>, BroadcastProducts<5>, BroadcastProducts<6>,
                                             BroadcastProducts<7>, BroadcastProducts<8>};
  static_assert(std::size(kProducts) == kMaxAttendHeads);
  const ProductsFn products = kProducts[nq - 1];
  // scores = scale * q . K, keys transposed: columns are positions
  products(q, q_stride, kt, kt_stride, head_dim, n_keys, scale, scores, n_keys);
  for (int g = 0; g < nq; ++g) softmax(scores + g * n_keys, n_keys);
  // out = softmax(scores) . V: columns are dimensions
  products(scores, n_keys, v, head_dim, n_keys, head_dim, 1.0f, out, out_stride);
}

}  // namespace ck::attn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_ATTENTION_INL_H_
