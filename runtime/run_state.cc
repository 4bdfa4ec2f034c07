#include "runtime/run_state.h"

#include <algorithm>

#include "kernels/attention.h"

namespace ck {
namespace {

// The float counts of each RunState buffer (the caches: elements), in one
// place for sizing and allocating.
struct BufferSizes {
  size_t x, q, kv, ffn, scores, share_rows, logits, keys, values, rope;
};

// Query rows of all KV heads when each head's group is padded to whole
// chunks of kMaxAttendHeads (the key shares' layout).
size_t padded_query_rows(const ModelConfig& c) {
  const HeadChunks h = head_chunks(c.n_heads / c.n_kv_heads);
  return static_cast<size_t>(c.n_kv_heads) * h.chunks * h.size;
}

int key_positions(int n_ctx) { return static_cast<int>((n_ctx + kKeyTile - 1) / kKeyTile * kKeyTile); }

BufferSizes buffer_sizes(const ModelConfig& c, int n_ctx, int n_seq, int n_batch, int n_scratch) {
  const size_t B = static_cast<size_t>(n_batch), S = static_cast<size_t>(n_seq);
  return {
      .x = B * c.dim,
      .q = B * c.q_dim(),
      .kv = B * c.kv_dim(),
      .ffn = B * c.ffn_dim,
      .scores = static_cast<size_t>(n_scratch) * attend_scratch_floats(n_ctx, c.head_dim),
      .share_rows = 2 * static_cast<size_t>(n_scratch) * padded_query_rows(c),
      .logits = S * c.vocab_size,
      .keys = S * c.n_layers * key_positions(n_ctx) * c.kv_dim(),
      .values = S * c.n_layers * n_ctx * c.kv_dim() + kKvSlack,
      // cos and sin, rope_dim/2 each; twice with local layers
      .rope = static_cast<size_t>(n_ctx) * c.rope_dim * (c.swa_period > 0 ? 2 : 1),
  };
}

// q, att_out: q_dim; k, v: kv_dim; or gate and up: ffn_dim.
size_t halves_floats(const BufferSizes& s) { return std::max(2 * s.q + 2 * s.kv, 2 * s.ffn); }

std::unique_ptr<float[]> buffer(size_t n) { return std::make_unique_for_overwrite<float[]>(n); }

size_t element_bytes(bool f16) { return f16 ? 2 : 4; }

// The per-frequency divisors of the global RoPE table: Llama 3.1's
// rope_freqs, or LongRoPE's long factors when the context exceeds the
// original one (llama.cpp's rule, with its n_ctx), else its short ones.
const float* rope_divisors(const ModelConfig& c, const Weights& w, int n_ctx) {
  if (c.rope_freqs) return w.rope_freqs.f32();
  if (c.longrope) return n_ctx > c.rope_orig_ctx ? w.rope_factors_long.f32() : w.rope_factors_short.f32();
  return nullptr;
}

}  // namespace

size_t kv_cache_bytes(const ModelConfig& c, int n_ctx, int n_seq, KvCacheTypes kv) {
  const BufferSizes s = buffer_sizes(c, n_ctx, n_seq, 0, 0);
  return s.keys * element_bytes(kv.key_f16) + s.values * element_bytes(kv.value_f16);
}

size_t run_state_bytes(const ModelConfig& c, int n_ctx, int n_seq, int n_batch, int n_scratch, KvCacheTypes kv) {
  const BufferSizes s = buffer_sizes(c, n_ctx, n_seq, n_batch, n_scratch);
  // x, xb (and proj): dim; then the larger half of a layer (RunState::halves).
  return sizeof(float) * (2 * s.x + halves_floats(s) + s.scores + s.share_rows * (c.head_dim + 2) + s.logits + s.rope) +
         kv_cache_bytes(c, n_ctx, n_seq, kv);
}

RunState make_run_state(const ModelConfig& c, const Weights& w, int n_ctx, int n_seq, int n_batch, int n_scratch,
                        KvCacheTypes kv) {
  const BufferSizes s = buffer_sizes(c, n_ctx, n_seq, n_batch, n_scratch);
  RunState r;
  r.kv = kv;
  r.n_ctx = n_ctx;
  r.n_seq = n_seq;
  r.n_batch = n_batch;
  r.n_scratch = n_scratch;
  r.key_positions = key_positions(n_ctx);
  r.x = buffer(s.x);
  r.xb = buffer(s.x);
  r.proj = r.xb.get();
  r.halves = buffer(halves_floats(s));
  r.q = r.halves.get();
  r.k = r.q + s.q;
  r.v = r.k + s.kv;
  r.att_out = r.v + s.kv;
  r.gate = r.halves.get();
  r.up = r.gate + s.ffn;
  r.attend_scratch = buffer(s.scores);
  r.max_key_shares = 2 * n_scratch;
  r.share_out = buffer(s.share_rows * c.head_dim);
  r.share_stats = buffer(s.share_rows * 2);
  r.logits = buffer(s.logits);
  r.key_cache = std::make_unique_for_overwrite<std::byte[]>(s.keys * element_bytes(kv.key_f16));
  r.value_cache = std::make_unique_for_overwrite<std::byte[]>(s.values * element_bytes(kv.value_f16));
  r.rope = std::make_unique<RopeTable>(
      n_ctx, c.rope_dim, RopeSpec{c.rope_base, c.rope_scale, rope_divisors(c, w, n_ctx), c.rope_magnitude});
  // Local layers rotate with their own base, neither scaled nor divided (llama.cpp's rope_freq_*_train_swa).
  if (c.swa_period > 0) {
    const RopeSpec local{.base = c.rope_base_local, .magnitude = c.rope_magnitude};
    r.rope_local = std::make_unique<RopeTable>(n_ctx, c.rope_dim, local);
  }
  return r;
}

}  // namespace ck
