// Dispatch of attend_tokens into the per-target code of attention-inl.h.
#include "kernels/attention.h"

#include "kernels/fp16.h"

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
}  // namespace attn

void attend_tokens(const float* q, int64_t q_token_stride, int heads, int tokens, KvView kt, KvView v,
                   int head_dim, int64_t n_keys, int64_t window, float scale, float* scratch, float* out,
                   int64_t out_token_stride) {
  attn::attend_tokens_fn()(q, q_token_stride, heads, tokens, kt, v, head_dim, n_keys, window, scale, scratch, out,
                           out_token_stride);
}

void store_kv(const float* x, int64_t n, void* out, bool f16, int64_t stride) {
  for (int64_t i = 0; i < n; ++i) {
    if (f16) {
      static_cast<uint16_t*>(out)[i * stride] = fp32_to_fp16(x[i]);
    } else {
      static_cast<float*>(out)[i * stride] = x[i];
    }
  }
}

int64_t attend_scratch_floats(int64_t n_ctx, int head_dim) {
  // Rows of queries, of scores (each row padded to whole vectors) and of outputs.
  const int64_t rows = int64_t{kMaxAttendHeads} * kMaxAttendTokens;
  return rows * (2 * head_dim + n_ctx + kMaxAttendTokens + 16);
}

}  // namespace ck
#endif  // HWY_ONCE
