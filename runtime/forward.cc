#include "runtime/forward.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

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

// q, k, v = xb @ Wq, Wk, Wv: for one token in a single parallel region.
void project_qkv(const LayerView& L, const float* xb, int n, float* q, float* k, float* v) {
  if (n == 1) {
    const GemvOutput outs[] = {{L.wq.dtype, L.wq.data, L.wq.rows, q},
                               {L.wk.dtype, L.wk.data, L.wk.rows, k},
                               {L.wv.dtype, L.wv.data, L.wv.rows, v}};
    gemv_multi(outs, L.wq.cols, xb);
  } else {
    matmul(L.wq, xb, n, q);
    matmul(L.wk, xb, n, k);
    matmul(L.wv, xb, n, v);
  }
}

void add_bias(const TensorView& b, float* Y, int n) {
  if (b.empty()) return;
  const int64_t len = b.rows * b.cols;
  for (int t = 0; t < n; ++t) add(Y + t * len, b.f32(), len);
}

// x (dim) = row `token` of the embedding, dequantized.
void embed(const TensorView& E, int32_t token, float* x) {
  const DTypeTraits& t = traits(E.dtype);
  t.dequantize(static_cast<const uint8_t*>(E.data) + token * row_bytes(t, E.cols), x, E.cols);
}

constexpr int64_t kMinParallelAttention = 1 << 16;  // multiply-adds of q.K plus scores.V, halved

// Multi-head attention of the n new tokens (queries in s.q, their keys and
// values already in the cache) over positions 0 .. pos + t, causal.
void attention(const ModelConfig& c, RunState& s, int layer, int n, int pos) {
  const int group = c.n_heads / c.n_kv_heads;  // query heads per KV head
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  const int pairs = n * c.n_heads;
  const int threads = std::min(omp_get_max_threads(), s.n_scratch);
  // Waking the team costs more than a few heads over a short context.
  const bool parallel = int64_t{pairs} * (pos + n) * c.head_dim >= kMinParallelAttention;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (parallel)
  for (int i = 0; i < pairs; ++i) {
    const int t = i / c.n_heads, h = i % c.n_heads;
    const int n_keys = pos + t + 1;
    const float* q = s.q.get() + static_cast<size_t>(t) * c.q_dim() + h * c.head_dim;
    const size_t kv = s.kv_offset(c, layer, h / group, 0);
    float* scores = s.scores.get() + static_cast<size_t>(omp_get_thread_num()) * s.n_ctx;
    // scores = softmax(q . K^T / sqrt(head_dim)); out = scores @ V
    dot_rows(q, s.key_cache.get() + kv, c.head_dim, n_keys, c.head_dim, scale, scores);
    softmax(scores, n_keys);
    float* out = s.att_out.get() + static_cast<size_t>(t) * c.q_dim() + h * c.head_dim;
    weighted_sum_rows(scores, s.value_cache.get() + kv, c.head_dim, n_keys, c.head_dim, out);
  }
}

}  // namespace

void forward(const ModelConfig& c, const Weights& w, RunState& s, const int32_t* tokens, int n, int pos,
             float* all_logits, const std::function<bool()>& stop) {
  const int dim = c.dim, q_dim = c.q_dim(), kv_dim = c.kv_dim(), ffn = c.ffn_dim;
  float* x = s.x.get();

  for (int t = 0; t < n; ++t) embed(w.token_embd, tokens[t], x + t * dim);

  for (int l = 0; l < c.n_layers; ++l) {
    // Between layers: a long prefill batch (seconds) stops within one layer's time.
    if (stop && stop()) throw EvalStopped();
    const LayerView& L = w.layers[l];

    // attention: xb = rmsnorm(x); q, k, v = xb @ Wq, Wk, Wv (+ biases); RoPE on q and k
    for (int t = 0; t < n; ++t) rmsnorm(s.xb.get() + t * dim, x + t * dim, L.attn_norm.f32(), dim, c.rms_eps);
    project_qkv(L, s.xb.get(), n, s.q.get(), s.k.get(), s.v.get());
    add_bias(L.bq, s.q.get(), n);
    add_bias(L.bk, s.k.get(), n);
    add_bias(L.bv, s.v.get(), n);
    for (int t = 0; t < n; ++t) {
      rope(s.q.get() + t * q_dim, c.n_heads, c.head_dim, *s.rope, pos + t, c.rope_neox);
      rope(s.k.get() + t * kv_dim, c.n_kv_heads, c.head_dim, *s.rope, pos + t, c.rope_neox);
      for (int h = 0; h < c.n_kv_heads; ++h) {  // append to the cache, one row per KV head
        const size_t at = s.kv_offset(c, l, h, pos + t);
        std::memcpy(s.key_cache.get() + at, s.k.get() + t * kv_dim + h * c.head_dim, c.head_dim * sizeof(float));
        std::memcpy(s.value_cache.get() + at, s.v.get() + t * kv_dim + h * c.head_dim, c.head_dim * sizeof(float));
      }
    }
    attention(c, s, l, n, pos);

    // x += att_out @ Wo
    matmul(L.wo, s.att_out.get(), n, s.proj.get());
    add(x, s.proj.get(), static_cast<int64_t>(n) * dim);

    // feed-forward: x += (silu(xb @ Wgate) * (xb @ Wup)) @ Wdown, xb = rmsnorm(x)
    for (int t = 0; t < n; ++t) rmsnorm(s.xb.get() + t * dim, x + t * dim, L.ffn_norm.f32(), dim, c.rms_eps);
    matmul(L.w_gate_up, s.xb.get(), n, s.gate_up.get());
    for (int t = 0; t < n; ++t) {
      const float* gate = s.gate_up.get() + static_cast<size_t>(t) * 2 * ffn;
      silu_mul(s.hidden.get() + static_cast<size_t>(t) * ffn, gate, gate + ffn, ffn);
    }
    matmul(L.w_down, s.hidden.get(), n, s.proj.get());
    add(x, s.proj.get(), static_cast<int64_t>(n) * dim);
  }

  // logits = rmsnorm(x) @ Wout, for the last token or for all of them
  if (all_logits != nullptr) {
    for (int t = 0; t < n; ++t) rmsnorm(s.xb.get() + t * dim, x + t * dim, w.output_norm.f32(), dim, c.rms_eps);
    matmul(w.output, s.xb.get(), n, all_logits);
  } else {
    rmsnorm(s.xb.get(), x + (n - 1) * dim, w.output_norm.f32(), dim, c.rms_eps);
    matmul(w.output, s.xb.get(), 1, s.logits.get());
  }
}

}  // namespace ck
