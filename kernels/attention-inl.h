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
#include <type_traits>

#include "kernels/ops.h"

HWY_BEFORE_NAMESPACE();
namespace ck::attn::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Independent FMA chains per step: a chain waits four cycles for its last
// FMA and two FMAs issue per cycle, so about eight to twelve chains keep the
// units busy. A group of kQ heads gets kUnroll vectors (of keys or of
// dimensions) per step.
template <int kQ>
constexpr int kUnroll = kQ <= 3 ? 4 : kQ == 4 ? 3 : kQ <= 6 ? 2 : 1;

// scores[g * n_keys + j] = scale * q_g . key_j: kUnroll vectors of keys at a
// time, one broadcast of q_g[d] times the keys' dimension d per head, so
// every head of the group reuses each load of the keys.
template <int kQ>
void GroupScores(const float* q, int64_t q_stride, const float* kt, int64_t kt_stride, int64_t n_keys, int head_dim,
                 float scale, float* scores) {
  constexpr int U = kUnroll<kQ>;
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const VF vscale = hn::Set(df, scale);
  int64_t j = 0;
  auto step = [&](auto unroll) {
    constexpr int kU = decltype(unroll)::value;
    VF acc[kQ][kU];
    for (int g = 0; g < kQ; ++g)
      for (int u = 0; u < kU; ++u) acc[g][u] = hn::Zero(df);
    for (int d = 0; d < head_dim; ++d) {
      VF k[kU];
      for (int u = 0; u < kU; ++u) k[u] = hn::LoadU(df, kt + d * kt_stride + j + u * N);
      for (int g = 0; g < kQ; ++g) {
        const VF qd = hn::Set(df, q[g * q_stride + d]);
        for (int u = 0; u < kU; ++u) acc[g][u] = hn::MulAdd(qd, k[u], acc[g][u]);
      }
    }
    for (int g = 0; g < kQ; ++g)
      for (int u = 0; u < kU; ++u) hn::StoreU(hn::Mul(acc[g][u], vscale), df, scores + g * n_keys + j + u * N);
    j += kU * N;
  };
  while (j + U * N <= n_keys) step(std::integral_constant<int, U>());
  while (j + N <= n_keys) step(std::integral_constant<int, 1>());
  for (; j < n_keys; ++j) {
    for (int g = 0; g < kQ; ++g) {
      float s = 0.0f;
      for (int d = 0; d < head_dim; ++d) s += q[g * q_stride + d] * kt[d * kt_stride + j];
      scores[g * n_keys + j] = s * scale;
    }
  }
}

// out_g = sum_j p[g * n_keys + j] * value_j, kUnroll vectors of dimensions at
// a time: each value load serves every head.
template <int kQ>
void GroupMix(const float* p, const float* v, int64_t n_keys, int head_dim, float* out, int64_t out_stride) {
  constexpr int U = kUnroll<kQ>;
  const DF df;
  const int N = static_cast<int>(hn::Lanes(df));
  int i = 0;
  auto step = [&](auto unroll) {
    constexpr int kU = decltype(unroll)::value;
    VF acc[kQ][kU];
    for (int g = 0; g < kQ; ++g)
      for (int u = 0; u < kU; ++u) acc[g][u] = hn::Zero(df);
    for (int64_t j = 0; j < n_keys; ++j) {
      VF val[kU];
      for (int u = 0; u < kU; ++u) val[u] = hn::LoadU(df, v + j * head_dim + i + u * N);
      for (int g = 0; g < kQ; ++g) {
        const VF pj = hn::Set(df, p[g * n_keys + j]);
        for (int u = 0; u < kU; ++u) acc[g][u] = hn::MulAdd(pj, val[u], acc[g][u]);
      }
    }
    for (int g = 0; g < kQ; ++g)
      for (int u = 0; u < kU; ++u) hn::StoreU(acc[g][u], df, out + g * out_stride + i + u * N);
    i += kU * N;
  };
  while (i + U * N <= head_dim) step(std::integral_constant<int, U>());
  while (i + N <= head_dim) step(std::integral_constant<int, 1>());
  for (; i < head_dim; ++i) {
    for (int g = 0; g < kQ; ++g) {
      float s = 0.0f;
      for (int64_t j = 0; j < n_keys; ++j) s += p[g * n_keys + j] * v[j * head_dim + i];
      out[g * out_stride + i] = s;
    }
  }
}

using ScoresFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, int, float, float*);
using MixFn = void (*)(const float*, const float*, int64_t, int, float*, int64_t);

void AttendGroup(const float* q, int64_t q_stride, int nq, const float* kt, int64_t kt_stride, const float* v,
                 int64_t n_keys, int head_dim, float scale, float* scores, float* out, int64_t out_stride) {
  static constexpr ScoresFn kScores[] = {GroupScores<1>, GroupScores<2>, GroupScores<3>, GroupScores<4>,
                                         GroupScores<5>, GroupScores<6>, GroupScores<7>, GroupScores<8>};
  static constexpr MixFn kMix[] = {GroupMix<1>, GroupMix<2>, GroupMix<3>, GroupMix<4>,
                                   GroupMix<5>, GroupMix<6>, GroupMix<7>, GroupMix<8>};
  kScores[nq - 1](q, q_stride, kt, kt_stride, n_keys, head_dim, scale, scores);
  for (int g = 0; g < nq; ++g) softmax(scores + g * n_keys, n_keys);
  kMix[nq - 1](scores, v, n_keys, head_dim, out, out_stride);
}

}  // namespace ck::attn::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CK_KERNELS_ATTENTION_INL_H_
