// Dispatch of attend_tokens into the per-target code of attention-inl.h.
#include "kernels/attention.h"

#include <algorithm>
#include <cmath>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/attention.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/attention-inl.h"

#if HWY_ONCE
namespace ck {
namespace attn {
HWY_EXPORT(AttendTokens);
// Looked up here, where it is exported (see gemm.cc's group_rows_fn).
auto* attend_tokens_fn() { return &HWY_DYNAMIC_DISPATCH(AttendTokens); }
HWY_EXPORT(StoreKv);
auto* store_kv_fn() { return &HWY_DYNAMIC_DISPATCH(StoreKv); }
}  // namespace attn

void attend_tokens(const float* q, int64_t q_token_stride, int heads, int tokens, KvView kt, KvView v,
                   int head_dim, int64_t n_keys, int64_t window, float scale, float* scratch, float* out,
                   int64_t out_token_stride, KeyShare share) {
  attn::attend_tokens_fn()(q, q_token_stride, heads, tokens, kt, v, head_dim, n_keys, window, scale, scratch, out,
                           out_token_stride, share);
}

void merge_key_shares(const float* outs, const float* stats, int shares, int rows, int head_dim, float* out) {
  for (int r = 0; r < rows; ++r) {
    float max = -INFINITY;
    for (int p = 0; p < shares; ++p) max = std::max(max, stats[2 * (p * rows + r)]);
    float total = 0.0f;
    float* o = out + static_cast<int64_t>(r) * head_dim;
    std::fill(o, o + head_dim, 0.0f);
    for (int p = 0; p < shares; ++p) {
      const float* st = stats + 2 * (p * rows + r);
      const float w = st[1] * std::exp(st[0] - max);
      const float* in = outs + static_cast<int64_t>(p * rows + r) * head_dim;
      for (int i = 0; i < head_dim; ++i) o[i] += w * in[i];
      total += w;
    }
    const float inv = 1.0f / total;
    for (int i = 0; i < head_dim; ++i) o[i] *= inv;
  }
}

void store_kv(const float* x, int64_t n, void* out, bool f16, int64_t stride) {
  attn::store_kv_fn()(x, n, out, f16, stride);
}

int64_t attend_scratch_floats(int64_t n_ctx, int head_dim) {
  // Rows of queries, of scores (each row padded to whole vectors) and of outputs.
  const int64_t rows = int64_t{kMaxAttendHeads} * kMaxAttendTokens;
  return rows * (2 * head_dim + n_ctx + kMaxAttendTokens + 16);
}

}  // namespace ck
#endif  // HWY_ONCE
