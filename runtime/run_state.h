// Everything the forward pass writes: activation buffers for one batch of
// tokens and the KV cache of n_seq sequences (slots) of n_ctx positions each,
// allocated once by the Session and never resized. Shapes in the comments;
// B = n_batch, S = n_seq.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "kernels/attention.h"
#include "kernels/ops.h"
#include "loader/model_config.h"
#include "runtime/weights.h"

namespace ck {

// The element type of the keys and of the values in the cache.
struct KvCacheTypes {
  bool key_f16 = true, value_f16 = true;
};

struct RunState {
  int n_ctx = 0;      // positions the KV cache holds per sequence
  int n_seq = 1;      // sequences (KV cache slots) one batch may mix
  int n_batch = 0;    // most tokens per forward() call
  int n_scratch = 0;  // attention score rows: the most threads attention may use
  int key_positions = 0;  // n_ctx rounded up to whole key tiles
  KvCacheTypes kv;    // the cache's element types: IEEE halves or floats

  std::unique_ptr<float[]> x;        // (B, dim) residual stream
  std::unique_ptr<float[]> xb;       // (B, dim) normalized input of a sub-block
  // (B, dim) output of wo / w_down, added to x: in xb's memory, which no
  // matmul reads while proj is written, and whose row t the residual add
  // rewrites only after reading proj's row t.
  float* proj = nullptr;
  // The attention half of a layer (q, k, v, att_out) and its feed-forward
  // half (gate, up) are never live at once, so they share `halves`: a
  // prefill batch keeps the larger half's buffers, not both.
  std::unique_ptr<float[]> halves;
  float* q = nullptr;        // (B, q_dim) queries
  float* k = nullptr;        // (B, kv_dim) new keys, before they go to the cache
  float* v = nullptr;        // (B, kv_dim) new values
  float* att_out = nullptr;  // (B, q_dim) attention output, heads side by side
  float* gate = nullptr;     // (B, ffn_dim) gate projection, then in place act(gate) * up: w_down's input
  float* up = nullptr;       // (B, ffn_dim) up projection
  std::unique_ptr<float[]> attend_scratch;  // (n_scratch, attend_scratch_floats): attention, per thread
  // Decode attention split over the keys (forward.cc, attend_in_shares):
  // each share's outputs, (max_key_shares, n_kv_heads, head chunks x
  // kMaxAttendHeads, head_dim) at most, and its two stats per row.
  int max_key_shares = 0;  // 2 n_scratch: two work items per thread
  // The threads forward() planned the current pass for. The keys' split
  // follows it, not the team's size, so that a decode pass on fewer threads
  // (runtime/decode_threads.h) computes the same bits.
  int planned_threads = 1;
  std::unique_ptr<float[]> share_out;
  std::unique_ptr<float[]> share_stats;
  std::unique_ptr<float[]> logits;   // (S, vocab): of the last token of each sequence of the batch

  // KV cache, one block per sequence (the first index, S). Values:
  // (S, n_layers, n_kv_heads, n_ctx, head_dim), so that for
  // one layer and KV head the values of all positions are consecutive rows.
  // Keys: (S, n_layers, n_kv_heads, key_positions / kKeyTile, head_dim,
  // kKeyTile), tiles of kKeyTile positions (kernels/attention.h, key_index;
  // docs/decoder.md), key_positions being n_ctx rounded up to whole tiles.
  // Elements are floats or halves (kv), with kKvSlack elements after the
  // last value row.
  std::unique_ptr<std::byte[]> key_cache;
  std::unique_ptr<std::byte[]> value_cache;

  std::unique_ptr<RopeTable> rope;        // cos/sin for positions 0 .. n_ctx-1
  std::unique_ptr<RopeTable> rope_local;  // the local (sliding-window) layers' table, when there are any

  // Byte offsets in key_cache and value_cache of position pos of (seq,
  // layer, kv_head): its key's first dimension (the next ones kKeyTile
  // elements apart) and its value row.
  size_t key_offset(const ModelConfig& c, int seq, int layer, int kv_head, int pos) const {
    const size_t block = ((static_cast<size_t>(seq) * c.n_layers + layer) * c.n_kv_heads + kv_head) * key_positions;
    return (block * c.head_dim + key_index(pos, 0, c.head_dim)) * (kv.key_f16 ? 2 : 4);
  }
  size_t value_offset(const ModelConfig& c, int seq, int layer, int kv_head, int pos) const {
    const size_t block = ((static_cast<size_t>(seq) * c.n_layers + layer) * c.n_kv_heads + kv_head) * n_ctx;
    return (block + pos) * c.head_dim * (kv.value_f16 ? 2 : 4);
  }
  // All the keys and values of (seq, layer, kv_head), for attend_tokens.
  KvView keys(const ModelConfig& c, int seq, int layer, int kv_head) const {
    return {key_cache.get() + key_offset(c, seq, layer, kv_head, 0), kv.key_f16};
  }
  KvView values(const ModelConfig& c, int seq, int layer, int kv_head) const {
    return {value_cache.get() + value_offset(c, seq, layer, kv_head, 0), kv.value_f16};
  }
};

// Bytes RunState would allocate (buffers, KV cache, RoPE table).
size_t run_state_bytes(const ModelConfig& c, int n_ctx, int n_seq, int n_batch, int n_scratch, KvCacheTypes kv);

// Bytes of the KV cache alone.
size_t kv_cache_bytes(const ModelConfig& c, int n_ctx, int n_seq, KvCacheTypes kv);

// Allocates every buffer (contents uninitialized: the forward pass writes
// before it reads); the RoPE tables take their frequency divisors from `w`.
RunState make_run_state(const ModelConfig& c, const Weights& w, int n_ctx, int n_seq, int n_batch, int n_scratch,
                        KvCacheTypes kv);

}  // namespace ck
