#include "runtime/forward.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/attention.h"
#include "kernels/dtype.h"
#include "kernels/gemv.h"
#include "kernels/ops.h"
#include "runtime/session.h"

namespace ck {
namespace {

// Y (n, W.rows) = X (n, W.cols) @ W^T
void matmul(const TensorView& W, const float* X, int n, float* Y) {
  if (n == 1) {
    gemv(W.dtype, W.data, W.rows, W.cols, X, Y);
  } else {
    gemm(W.dtype, W.data, W.rows, W.cols, X, n, Y);
  }
}

// q, k, v = xb @ Wq, Wk, Wv, in one parallel region (and for a batch with xb
// quantized once).
void project_qkv(const LayerView& L, const float* xb, int n, float* q, float* k, float* v) {
  const GemvOutput outs[] = {{L.wq.dtype, L.wq.data, L.wq.rows, q},
                             {L.wk.dtype, L.wk.data, L.wk.rows, k},
                             {L.wv.dtype, L.wv.data, L.wv.rows, v}};
  gemm_multi(outs, L.wq.cols, xb, n);
}

void add_bias(const TensorView& b, float* Y, int n) {
  if (b.empty()) return;
  const int64_t len = b.rows * b.cols;
  for (int t = 0; t < n; ++t) add(Y + t * len, b.f32(), len);
}

// x (dim) = row `token` of the embedding, dequantized, times `scale`.
void embed(const TensorView& E, int32_t token, float scale, float* x) {
  const DTypeTraits& t = traits(E.dtype);
  t.dequantize(static_cast<const uint8_t*>(E.data) + token * row_bytes(t, E.cols), x, E.cols);
  if (scale != 1.0f) {
    for (int64_t i = 0; i < E.cols; ++i) x[i] *= scale;
  }
}

// RMSNorm of each of the n rows of `width` floats of x, in place, when the
// weight is present (an empty view: the architecture has no such norm).
void rmsnorm_rows(const TensorView& weight, float* x, int64_t n, int width, float eps) {
  if (weight.empty()) return;
  for (int64_t r = 0; r < n; ++r) rmsnorm(x + r * width, x + r * width, weight.f32(), width, eps);
}

constexpr int64_t kMinParallelAttention = 1 << 16;  // multiply-adds of q.K plus scores.V, halved

// Multi-head attention of the batch's tokens (queries in s.q, their keys and
// values already in the cache), each over the positions 0 .. its own of its
// run's slot, causal; on a local layer only over the last c.sliding_window
// of them. One work item is a block of up to kMaxAttendTokens consecutive
// tokens of one run and the query heads of one KV head (at most
// kMaxAttendHeads of them), so each key and value is read once per block
// from memory and reused from cache by all its rows.
void attention(const ModelConfig& c, RunState& s, int layer, std::span<const BatchRun> runs, int n) {
  const int group = c.n_heads / c.n_kv_heads;  // query heads per KV head
  const int hd = c.head_dim;
  const int window = c.is_local(layer) ? c.sliding_window : 0;
  const int threads = std::min(omp_get_max_threads(), s.n_scratch);
  // Tokens and heads per item: as many as fit, halved while there would be
  // too few items to keep the threads busy (decode of a model with few KV
  // heads; short batches).
  int span = std::min(n, kMaxAttendTokens), chunk = std::min(group, kMaxAttendHeads);
  auto blocks_for = [&](int tok) {
    int blocks = 0;
    for (const BatchRun& r : runs) blocks += (r.n + tok - 1) / tok;
    return blocks;
  };
  auto items_for = [&](int tok, int ch) { return blocks_for(tok) * c.n_kv_heads * ((group + ch - 1) / ch); };
  while (span > 1 && items_for(span, chunk) < 2 * threads) span = (span + 1) / 2;
  while (chunk > 1 && items_for(span, chunk) < 2 * threads) chunk = (chunk + 1) / 2;
  const int chunks = (group + chunk - 1) / chunk;
  const int items = blocks_for(span) * c.n_kv_heads * chunks;
  const int64_t scratch_floats = attend_scratch_floats(s.n_ctx, hd);
  // Waking the team costs more than a few heads over a short context.
  int64_t work = 0;
  for (const BatchRun& r : runs) work += int64_t{r.n} * c.n_heads * (r.pos + r.n) * hd;
  const bool parallel = work >= kMinParallelAttention;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (parallel)
  for (int i = 0; i < items; ++i) {
    const int kv_head = i / chunks % c.n_kv_heads, part = i % chunks;
    // Block i / (n_kv_heads * chunks) of the batch: find its run (few runs).
    int block = i / (c.n_kv_heads * chunks), first = 0;
    size_t r = 0;
    while (block >= (runs[r].n + span - 1) / span) {
      block -= (runs[r].n + span - 1) / span;
      first += runs[r].n;
      ++r;
    }
    const BatchRun& run = runs[r];
    const int t0 = block * span, h0 = kv_head * group + part * chunk;
    const size_t at = static_cast<size_t>(first + t0) * c.q_dim() + static_cast<size_t>(h0) * hd;
    float* scratch = s.attend_scratch.get() + static_cast<size_t>(omp_get_thread_num()) * scratch_floats;
    attend_tokens(s.q.get() + at, c.q_dim(), std::min(chunk, group - part * chunk), std::min(span, run.n - t0),
                  s.key_cache.get() + s.key_block(c, run.seq, layer, kv_head), s.key_stride,
                  s.value_cache.get() + s.value_block(c, run.seq, layer, kv_head), hd, run.pos + t0 + 1, window,
                  c.attn_scale, scratch, s.att_out.get() + at, c.q_dim());
  }
}

}  // namespace

void forward(const ModelConfig& c, const Weights& w, RunState& s, const int32_t* tokens,
             std::span<const BatchRun> runs, float* all_logits, const std::function<bool()>& stop) {
  const int dim = c.dim, q_dim = c.q_dim(), kv_dim = c.kv_dim(), ffn = c.ffn_dim;
  float* x = s.x.get();
  int n = 0;  // tokens in the batch
  for (const BatchRun& r : runs) n += r.n;

  for (int t = 0; t < n; ++t) embed(w.token_embd, tokens[t], c.embed_scale, x + t * dim);

  for (int l = 0; l < c.n_layers; ++l) {
    // Between layers: a long prefill batch (seconds) stops within one layer's time.
    if (stop && stop()) throw EvalStopped();
    const LayerView& L = w.layers[l];

    // attention: xb = rmsnorm(x); q, k, v = xb @ Wq, Wk, Wv (+ biases);
    // per-head RMSNorm of q and k (qwen3, gemma3); RoPE on q and k (local
    // layers: their own table)
    for (int t = 0; t < n; ++t) rmsnorm(s.xb.get() + t * dim, x + t * dim, L.attn_norm.f32(), dim, c.rms_eps);
    project_qkv(L, s.xb.get(), n, s.q.get(), s.k.get(), s.v.get());
    add_bias(L.bq, s.q.get(), n);
    add_bias(L.bk, s.k.get(), n);
    add_bias(L.bv, s.v.get(), n);
    rmsnorm_rows(L.q_norm, s.q.get(), int64_t{n} * c.n_heads, c.head_dim, c.rms_eps);
    rmsnorm_rows(L.k_norm, s.k.get(), int64_t{n} * c.n_kv_heads, c.head_dim, c.rms_eps);
    const RopeTable& rope_table = c.is_local(l) ? *s.rope_local : *s.rope;
    for (int t = 0; const BatchRun& r : runs) {
      for (int pos = r.pos; pos < r.pos + r.n; ++pos, ++t) {
        rope(s.q.get() + t * q_dim, c.n_heads, c.head_dim, rope_table, pos, c.rope_neox);
        rope(s.k.get() + t * kv_dim, c.n_kv_heads, c.head_dim, rope_table, pos, c.rope_neox);
        for (int h = 0; h < c.n_kv_heads; ++h) {  // append to the slot's cache: a value row, a key column
          const float* key = s.k.get() + t * kv_dim + h * c.head_dim;
          float* kt = s.key_cache.get() + s.key_block(c, r.seq, l, h) + pos;
          for (int d = 0; d < c.head_dim; ++d) kt[static_cast<size_t>(d) * s.key_stride] = key[d];
          std::memcpy(s.value_cache.get() + s.value_block(c, r.seq, l, h) + static_cast<size_t>(pos) * c.head_dim,
                      s.v.get() + t * kv_dim + h * c.head_dim, c.head_dim * sizeof(float));
        }
      }
    }
    attention(c, s, l, runs, n);

    // x += att_out @ Wo (gemma3: rmsnorm'd first)
    matmul(L.wo, s.att_out.get(), n, s.proj.get());
    rmsnorm_rows(L.post_attn_norm, s.proj.get(), n, dim, c.rms_eps);
    add(x, s.proj.get(), static_cast<int64_t>(n) * dim);

    // feed-forward: x += (act(xb @ Wgate) * (xb @ Wup)) @ Wdown, xb = rmsnorm(x),
    // act = silu (SwiGLU) or tanh-GELU (GeGLU, gemma3; which also rmsnorms the result)
    for (int t = 0; t < n; ++t) rmsnorm(s.xb.get() + t * dim, x + t * dim, L.ffn_norm.f32(), dim, c.rms_eps);
    matmul(L.w_gate_up, s.xb.get(), n, s.gate_up.get());
    for (int t = 0; t < n; ++t) {
      const float* gate = s.gate_up.get() + static_cast<size_t>(t) * 2 * ffn;
      float* hidden = s.hidden.get() + static_cast<size_t>(t) * ffn;
      if (c.ffn_act == FfnActivation::GeluTanh) {
        gelu_tanh_mul(hidden, gate, gate + ffn, ffn);
      } else {
        silu_mul(hidden, gate, gate + ffn, ffn);
      }
    }
    matmul(L.w_down, s.hidden.get(), n, s.proj.get());
    rmsnorm_rows(L.post_ffn_norm, s.proj.get(), n, dim, c.rms_eps);
    add(x, s.proj.get(), static_cast<int64_t>(n) * dim);
  }

  // logits = rmsnorm(x) @ Wout, for the last token of each run or for all of them
  if (all_logits != nullptr) {
    for (int t = 0; t < n; ++t) rmsnorm(s.xb.get() + t * dim, x + t * dim, w.output_norm.f32(), dim, c.rms_eps);
    matmul(w.output, s.xb.get(), n, all_logits);
  } else {
    int last = -1;
    for (size_t i = 0; i < runs.size(); ++i) {
      last += runs[i].n;
      rmsnorm(s.xb.get() + i * dim, x + last * dim, w.output_norm.f32(), dim, c.rms_eps);
    }
    matmul(w.output, s.xb.get(), static_cast<int>(runs.size()), s.logits.get());
  }
}

}  // namespace ck
