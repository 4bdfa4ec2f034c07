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

// A KV head's group of query heads in chunks of at most kMaxAttendHeads:
// `chunks` chunks of `size` heads (the last one may have fewer).
struct HeadChunks {
  int size, chunks;
};
inline HeadChunks head_chunks(int group) {
  const int size = group < kMaxAttendHeads ? group : kMaxAttendHeads;
  return {size, (group + size - 1) / size};
}

// One KV head's keys or values in the cache: floats, or IEEE halves (the
// default cache type, as llama.cpp's; the products convert in registers).
struct KvView {
  const void* data;
  bool f16;
};

// Keys come in tiles of kKeyTile consecutive positions, each tile
// head_dim x kKeyTile (dimension-major) and contiguous: one vector load holds
// one dimension of many keys, so a query's scores need no horizontal sums,
// and the pass over a head's keys is one stream through memory rather than
// head_dim strided ones (docs/decoder.md, "KV cache layout"). 16 positions
// are one AVX-512 or two AVX2 vectors of floats.
inline constexpr int64_t kKeyTile = 16;

// The index of dimension d of key j in a head's tiled keys.
inline int64_t key_index(int64_t j, int64_t d, int head_dim) {
  return (j / kKeyTile) * kKeyTile * head_dim + d * kKeyTile + j % kKeyTile;
}

// A share of the keys for one attend_tokens call, so that several threads
// can split one head's keys (split-K, as flash-decoding does: in decode a
// thread per share reads each key once, where splitting the query heads
// would read them once per thread). The call sees only keys j in [begin,
// end), normalizes each row's softmax over them, and writes stats[2 row] and
// stats[2 row + 1] = the row's largest scaled score and its sum of
// exp(score - largest), row = t * heads + h, for merge_key_shares. No
// stats: every key.
struct KeyShare {
  int64_t begin = 0, end = INT64_MAX;
  float* stats = nullptr;
};

// For token t < tokens and head h < heads (query q + t * q_token_stride +
// h * head_dim, output at the same offsets of out with out_token_stride):
//   out = sum_j softmax_j(scale * q . key_j) * value_j
// over the keys j that token t sees: j < n_keys + t (causal: n_keys is what
// the first token sees), and j >= n_keys + t - window if window > 0 (a
// sliding window). Dimension d of key j is kt[key_index(j, d, head_dim)]
// (whole tiles: positions up to the next multiple of kKeyTile are read and
// ignored). Value j is the row v + j * head_dim. `scratch` holds
// attend_scratch_floats floats. A half value cache must have at least
// kKvSlack elements after the last value row (whole vectors are read).
// A row that sees no key of the share outputs zeros, stats {-inf, 0}.
void attend_tokens(const float* q, int64_t q_token_stride, int heads, int tokens, KvView kt, KvView v,
                   int head_dim, int64_t n_keys, int64_t window, float scale, float* scratch, float* out,
                   int64_t out_token_stride, KeyShare share = {});

// out[r * head_dim + i] = the attention of row r < rows over all the keys of
// `shares` shares, from each share p's output outs[(p * rows + r) *
// head_dim + i] and its stats[2 (p * rows + r) ..] (attend_tokens with a
// KeyShare): the outputs weighted by sum_p exp(max_p - max).
void merge_key_shares(const float* outs, const float* stats, int shares, int rows, int head_dim, float* out);

inline constexpr int64_t kKvSlack = 16;

// out[i * stride] = x[i] for i < n, as floats or rounded to IEEE halves
// (nearest even): a new key (stride kKeyTile, from key_index(j, 0, ...)) or
// value (a row, stride 1) entering the cache.
void store_kv(const float* x, int64_t n, void* out, bool f16, int64_t stride);

// Scratch of one attend_tokens call over a cache of n_ctx positions.
int64_t attend_scratch_floats(int64_t n_ctx, int head_dim);

}  // namespace ck
