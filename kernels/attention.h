// Attention of a block of consecutive tokens and the query heads that share
// one KV head (grouped-query attention): each key and value is read once for
// every query row of the block, from cache, instead of once per token and
// head.
#pragma once
#include <cstdint>

namespace ck {

// The most query heads and tokens one attend_tokens call takes; callers
// split larger groups and batches.
inline constexpr int kMaxAttendHeads = 8;
inline constexpr int kMaxAttendTokens = 4;

// One KV head's keys or values in the cache: floats, or IEEE halves (the
// default cache type, as llama.cpp's; the products convert in registers).
struct KvView {
  const void* data;
  bool f16;
};

// For token t < tokens and head h < heads (query q + t * q_token_stride +
// h * head_dim, output at the same offsets of out with out_token_stride):
//   out = sum_j softmax_j(scale * q . key_j) * value_j
// over the keys j that token t sees: j < n_keys + t (causal: n_keys is what
// the first token sees), and j >= n_keys + t - window if window > 0 (a
// sliding window). Keys are stored transposed, so that one vector load holds
// a dimension of many keys: dim d of key j is kt[d * kt_stride + j]. Value j
// is the row v + j * head_dim. `scratch` holds attend_scratch_floats floats.
// A half cache must have at least kKvSlack elements after each key row's
// last position and after the last value row (whole vectors are read).
void attend_tokens(const float* q, int64_t q_token_stride, int heads, int tokens, KvView kt, int64_t kt_stride,
                   KvView v, int head_dim, int64_t n_keys, int64_t window, float scale, float* scratch, float* out,
                   int64_t out_token_stride);

inline constexpr int64_t kKvSlack = 16;

// out[i * stride] = x[i] for i < n, as floats or rounded to IEEE halves
// (nearest even): a new key (a column of the transposed keys, stride the
// key stride) or value (a row, stride 1) entering the cache.
void store_kv(const float* x, int64_t n, void* out, bool f16, int64_t stride);

// Scratch of one attend_tokens call over a cache of n_ctx positions.
int64_t attend_scratch_floats(int64_t n_ctx, int head_dim);

}  // namespace ck
