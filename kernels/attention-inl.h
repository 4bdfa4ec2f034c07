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

#include "kernels/ops.h"

HWY_BEFORE_NAMESPACE();
namespace ck::attn::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// scores[g * n_keys + j] = scale * q_g . key_j: a vector of keys at a time,
// one broadcast of q_g[d] times the keys' dimension d per head, so every
// head of the group reuses each load of the keys.
template <int kQ>
void GroupScores(const float* q, int64_t q_stride, const float* kt, int64_t kt_stride, int64_t n_keys, int head_dim,
                 float scale, float* scores) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const VF vscale = hn::Set(df, scale);
  int64_t j = 0;
  for (; j + N <= n_keys; j += N) {
    VF acc[kQ];
    for (int g = 0; g < kQ; ++g) acc[g] = hn::Zero(df);
    for (int d = 0; d < head_dim; ++d) {
      const VF k = hn::LoadU(df, kt + d * kt_stride + j);
      for (int g = 0; g < kQ; ++g) acc[g] = hn::MulAdd(hn::Set(df, q[g * q_stride + d]), k, acc[g]);
    }
    for (int g = 0; g < kQ; ++g) hn::StoreU(hn::Mul(acc[g], vscale), df, scores + g * n_keys + j);
  }
  for (; j < n_keys; ++j) {
    for (int g = 0; g < kQ; ++g) {
      float s = 0.0f;
      for (int d = 0; d < head_dim; ++d) s += q[g * q_stride + d] * kt[d * kt_stride + j];
      scores[g * n_keys + j] = s * scale;
    }
  }
}

// out_g = sum_j p[g * n_keys + j] * value_j, one vector of dimensions at a
// time: each value load serves every head.
template <int kQ>
void GroupMix(const float* p, const float* v, int64_t n_keys, int head_dim, float* out, int64_t out_stride) {
  const DF df;
  const int N = static_cast<int>(hn::Lanes(df));
  int i = 0;
  for (; i + N <= head_dim; i += N) {
    VF acc[kQ];
    for (int g = 0; g < kQ; ++g) acc[g] = hn::Zero(df);
    for (int64_t j = 0; j < n_keys; ++j) {
      const VF val = hn::LoadU(df, v + j * head_dim + i);
      for (int g = 0; g < kQ; ++g) acc[g] = hn::MulAdd(hn::Set(df, p[g * n_keys + j]), val, acc[g]);
    }
    for (int g = 0; g < kQ; ++g) hn::StoreU(acc[g], df, out + g * out_stride + i);
  }
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
