#include "runtime/forward.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "kernels/attention.h"
#include "kernels/dtype.h"
#include "kernels/gemv.h"
#include "kernels/ops.h"
#include "kernels/simd_target.h"
#include "kernels/team.h"
#include "runtime/decode_threads.h"
#include "runtime/forward_profile.h"
#include "runtime/session.h"

namespace ck {
namespace {

// fn(t) for this thread's share of the n tokens, then a barrier: the
// per-token elementwise work (norms, RoPE, activations, residual adds). In
// decode the master does it while the others wait.
template <class Fn>
void for_tokens(Team& team, int n, Fn&& fn) {
  for (auto [t, end] = team.share(n); t < end; ++t) fn(static_cast<int>(t));
  team.barrier();
}

// The per-token step fn(t) that follows a matrix product. For a few tokens
// (decode) the product's last barrier runs it for all of them on the thread
// that arrives last (then(): a Team::Last), one barrier fewer per step, and
// none of them waits for a master the scheduler parked on a busy machine
// (docs/threading.md); for a batch, after() splits it over the threads
// (for_tokens).
template <class Fn>
class TokenStep {
 public:
  TokenStep(Team& team, int n, Fn fn) : team_(team), n_(n), fn_(std::move(fn)) {}
  Team::Last then() { return serial() ? Team::last_of(*this) : Team::Last{}; }
  void after() {
    if (!serial()) for_tokens(team_, n_, fn_);
  }
  void operator()() {
    for (int t = 0; t < n_; ++t) fn_(t);
  }

 private:
  bool serial() const { return n_ <= kGemvBatchMax; }
  Team& team_;
  int n_;
  Fn fn_;
};

// Y (n, W.rows) = X (n, W.cols) @ W^T
void matmul(Team& team, const TensorView& W, const float* X, int n, float* Y, Team::Last then = {}) {
  const GemvOutput out{W.dtype, W.data, W.rows, Y};
  gemm_multi(team, {&out, 1}, W.cols, X, n, then);
}

// q, k, v = xb @ Wq, Wk, Wv, in one pass over the threads (and for a batch
// with xb quantized once).
void project_qkv(Team& team, const LayerView& L, const float* xb, int n, float* q, float* k, float* v,
                 Team::Last then) {
  const GemvOutput outs[] = {{L.wq.dtype, L.wq.data, L.wq.rows, q},
                             {L.wk.dtype, L.wk.data, L.wk.rows, k},
                             {L.wv.dtype, L.wv.data, L.wv.rows, v}};
  gemm_multi(team, outs, L.wq.cols, xb, n, then);
}

// gate, up (n, ffn each) = xb @ the gate rows and the up rows of the fused
// W (2 ffn, dim), in one pass as two outputs: gate's rows are then whole,
// so act(gate) * up goes into gate in place and feeds w_down.
void project_gate_up(Team& team, const TensorView& W, const float* xb, int n, float* gate, float* up,
                     Team::Last then) {
  const int64_t ffn = W.rows / 2;
  const auto* up_rows = static_cast<const uint8_t*>(W.data) + ffn * row_bytes(traits(W.dtype), W.cols);
  const GemvOutput outs[] = {{W.dtype, W.data, ffn, gate}, {W.dtype, up_rows, ffn, up}};
  gemm_multi(team, outs, W.cols, xb, n, then);
}

// y (len) += bias, when the architecture has one.
void add_bias(const TensorView& b, float* y) {
  if (!b.empty()) add(y, b.f32(), b.rows * b.cols);
}

// x (dim) = row `token` of the embedding, dequantized, times `scale`.
void embed(const TensorView& E, int32_t token, float scale, float* x) {
  dequantize_row(E.dtype, E.data, E.cols, token, x);
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

// Keys a share holds at least: below that a head's keys are few enough to
// be read from cache by every thread that needs them.
constexpr int64_t kMinShareKeys = 256;

// Shares of the keys that one token's attention splits into: enough for
// two work items per planned thread (s.planned_threads, whatever the team's
// size) where the (KV head, head chunk) items are fewer, each share at
// least kMinShareKeys; 1 for no split (and for one planned thread, where a
// split only adds the merge).
int key_shares(const ModelConfig& c, const RunState& s, int64_t n_keys, int window) {
  if (s.planned_threads == 1) return 1;
  const int items = c.n_kv_heads * head_chunks(c.n_heads / c.n_kv_heads).chunks;
  const int64_t seen = window > 0 ? std::min<int64_t>(n_keys, window) : n_keys;
  const int64_t wanted = (2 * s.planned_threads + items - 1) / items;
  return static_cast<int>(std::clamp<int64_t>(std::min(wanted, seen / kMinShareKeys), 1, s.max_key_shares));
}

// Attention of one token (decode) whose keys are split into `shares`
// shares (split-K): a work item is a share of one KV head's keys for a
// chunk of its query heads, so each key is read once however many threads
// there are; the last thread at the barrier merges the shares
// (merge_key_shares). Splitting the query heads instead, as attention()
// does for larger batches, reads every key once per thread: at depth 4096
// SmolLM2's decode attention took as long on 2 threads as on 1.
void attend_in_shares(Team& team, const ModelConfig& c, RunState& s, int layer, const BatchRun& run, int window,
                      int shares) {
  const int group = c.n_heads / c.n_kv_heads, hd = c.head_dim;
  // Named copies, not a structured binding: the lambdas below capture them
  // (clang before 16 rejects capturing a binding).
  const HeadChunks split = head_chunks(group);
  const int chunk = split.size, chunks = split.chunks;
  const int64_t n_keys = run.pos + 1;
  const int64_t first = window > 0 ? std::max<int64_t>(0, n_keys - window) : 0;
  // Share p's keys: [bound(p), bound(p + 1)), inner bounds at tile starts.
  auto bound = [&](int p) -> int64_t {
    if (p == shares) return n_keys;
    return p == 0 ? 0 : (first + (n_keys - first) * p / shares) / kKeyTile * kKeyTile;
  };
  // Outputs and stats of (KV head, chunk) block b, share p, head r of the
  // chunk's `rows`: at (b * shares + p) * chunk + r rows (merge_key_shares'
  // share-major order within a block).
  auto rows_of = [&](int part) { return std::min(chunk, group - part * chunk); };
  auto merge = [&] {
    for (int b = 0; b < c.n_kv_heads * chunks; ++b) {
      const int h0 = b / chunks * group + b % chunks * chunk;
      const int64_t at = int64_t{b} * shares * chunk;
      merge_key_shares(s.share_out.get() + at * hd, s.share_stats.get() + 2 * at, shares, rows_of(b % chunks), hd,
                       s.att_out + int64_t{h0} * hd);
    }
  };
  const int64_t scratch_floats = attend_scratch_floats(s.n_ctx, hd);
  float* scratch = s.attend_scratch.get() + static_cast<size_t>(team.thread()) * scratch_floats;
  team.for_dynamic(
      int64_t{c.n_kv_heads} * chunks * shares,
      [&](int64_t i) {
        const int b = static_cast<int>(i / shares), p = static_cast<int>(i % shares);
        const int kv_head = b / chunks, part = b % chunks, rows = rows_of(part);
        const int h0 = kv_head * group + part * chunk;
        const int64_t at = int64_t{b} * shares * chunk + int64_t{p} * rows;
        attend_tokens(s.q + int64_t{h0} * hd, c.q_dim(), rows, 1, s.keys(c, run.seq, layer, kv_head),
                      s.values(c, run.seq, layer, kv_head), hd, n_keys, window, c.attn_scale, scratch,
                      s.share_out.get() + at * hd, 0, {bound(p), bound(p + 1), s.share_stats.get() + 2 * at});
      },
      Team::last_of(merge));
}

// Multi-head attention of the batch's tokens (queries in s.q, their keys and
// values already in the cache), each over the positions 0 .. its own of its
// run's slot, causal; on a local layer only over the last c.sliding_window
// of them. One work item is a block of up to kMaxAttendTokens consecutive
// tokens of one run and the query heads of one KV head (at most
// kMaxAttendHeads of them), so each key and value is read once per block
// from memory and reused from cache by all its rows.
void attention(Team& team, const ModelConfig& c, RunState& s, int layer, std::span<const BatchRun> runs, int n) {
  const int group = c.n_heads / c.n_kv_heads;  // query heads per KV head
  const int hd = c.head_dim;
  const int window = c.is_local(layer) ? c.sliding_window : 0;
  if (n == 1) {
    const int shares = key_shares(c, s, runs[0].pos + 1, window);
    if (shares > 1) return attend_in_shares(team, c, s, layer, runs[0], window, shares);
  }
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
  // (Items per planned thread, as key_shares: the same items on a smaller team.)
  while (span > 1 && items_for(span, chunk) < 2 * s.planned_threads) span = (span + 1) / 2;
  while (chunk > 1 && items_for(span, chunk) < 2 * s.planned_threads) chunk = (chunk + 1) / 2;
  const int chunks = (group + chunk - 1) / chunk;
  const int64_t scratch_floats = attend_scratch_floats(s.n_ctx, hd);
  float* scratch = s.attend_scratch.get() + static_cast<size_t>(team.thread()) * scratch_floats;
  team.for_dynamic(items_for(span, chunk), [&](int64_t i) {
    const int kv_head = static_cast<int>(i / chunks % c.n_kv_heads), part = static_cast<int>(i % chunks);
    // Block i / (n_kv_heads * chunks) of the batch: find its run (few runs).
    int block = static_cast<int>(i / (c.n_kv_heads * chunks)), first = 0;
    size_t r = 0;
    while (block >= (runs[r].n + span - 1) / span) {
      block -= (runs[r].n + span - 1) / span;
      first += runs[r].n;
      ++r;
    }
    const BatchRun& run = runs[r];
    const int t0 = block * span, h0 = kv_head * group + part * chunk;
    const size_t at = static_cast<size_t>(first + t0) * c.q_dim() + static_cast<size_t>(h0) * hd;
    attend_tokens(s.q + at, c.q_dim(), std::min(chunk, group - part * chunk), std::min(span, run.n - t0),
                  s.keys(c, run.seq, layer, kv_head), s.values(c, run.seq, layer, kv_head), hd,
                  run.pos + t0 + 1, window, c.attn_scale, scratch, s.att_out + at, c.q_dim());
  });
}

// The steps' wall times, read on the master thread when profiling (every
// step ends at a barrier, so one lap is one step; in decode a TokenStep runs
// inside the product before it and counts in its lap); idle otherwise.
class StepClock {
 public:
  StepClock(const Team& team, ForwardProfile* profile) : profile_(team.master() ? profile : nullptr) {
    if (profile_ != nullptr) last_ = std::chrono::steady_clock::now();
  }
  void lap(Step step) { lap(step, 0, 0, 0); }
  // A matmul step of n tokens through `rows` x `cols` weights.
  void lap(Step step, int64_t rows, int64_t cols, int64_t n) {
    if (profile_ == nullptr) return;
    const auto now = std::chrono::steady_clock::now();
    StepTotals& t = profile_->steps[static_cast<size_t>(step)];
    t.ns += std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_).count();
    ++t.calls;
    t.macs += rows * cols * n;
    t.rows = rows;
    t.cols = cols;
    last_ = now;
  }

 private:
  ForwardProfile* profile_;
  std::chrono::steady_clock::time_point last_;
};

// The run of token t of the batch (runs in order, few of them).
const BatchRun& run_of(std::span<const BatchRun> runs, int t, int& pos) {
  for (const BatchRun& r : runs) {
    if (t < r.n) {
      pos = r.pos + t;
      return r;
    }
    t -= r.n;
  }
  return runs.back();  // not reached: t < the batch's tokens
}

// The forward pass, run by every thread of the team: matrix products and
// attention split over the threads, the per-token work over tokens. Sets
// `stopped` (and returns early on every thread) when `stop` says so.
void forward_pass(Team& team, const ModelConfig& c, const Weights& w, RunState& s, const int32_t* tokens,
                  std::span<const BatchRun> runs, int n, float* all_logits, const std::function<bool()>& stop,
                  bool& stopped, ForwardProfile* profile) {
  const int dim = c.dim, q_dim = c.q_dim(), kv_dim = c.kv_dim(), ffn = c.ffn_dim;
  float* x = s.x.get();
  StepClock clock(team, profile);

  for_tokens(team, n, [&](int t) { embed(w.token_embd, tokens[t], c.embed_scale, x + t * dim); });
  clock.lap(Step::Embed);

  for (int l = 0; l < c.n_layers; ++l) {
    const LayerView& L = w.layers[l];
    // Between layers: a long prefill batch (seconds) stops within one
    // layer's time. The master asks; the barrier of the next for_tokens
    // tells the others.
    if (team.master() && stop && stop()) stopped = true;

    // attention: xb = rmsnorm(x); q, k, v = xb @ Wq, Wk, Wv (+ biases);
    // per-head RMSNorm of q and k (qwen3, gemma3); RoPE on q and k (local
    // layers: their own table); k and v appended to the cache
    for_tokens(team, n, [&](int t) { rmsnorm(s.xb.get() + t * dim, x + t * dim, L.attn_norm.f32(), dim, c.rms_eps); });
    if (stopped) return;
    clock.lap(Step::AttnNorm);
    const RopeTable& rope_table = c.is_local(l) ? *s.rope_local : *s.rope;
    TokenStep qkv_post(team, n, [&](int t) {
      int pos = 0;
      const BatchRun& run = run_of(runs, t, pos);
      float* q = s.q + t * q_dim;
      float* k = s.k + t * kv_dim;
      add_bias(L.bq, q);
      add_bias(L.bk, k);
      add_bias(L.bv, s.v + t * kv_dim);
      rmsnorm_rows(L.q_norm, q, c.n_heads, c.head_dim, c.rms_eps);
      rmsnorm_rows(L.k_norm, k, c.n_kv_heads, c.head_dim, c.rms_eps);
      rope(q, c.n_heads, c.head_dim, rope_table, pos, c.rope_neox);
      rope(k, c.n_kv_heads, c.head_dim, rope_table, pos, c.rope_neox);
      for (int h = 0; h < c.n_kv_heads; ++h) {  // in the run's slot: a key (in its tile), a value row
        store_kv(k + h * c.head_dim, c.head_dim, s.key_cache.get() + s.key_offset(c, run.seq, l, h, pos),
                 s.kv.key_f16, kKeyTile);
        store_kv(s.v + t * kv_dim + h * c.head_dim, c.head_dim,
                 s.value_cache.get() + s.value_offset(c, run.seq, l, h, pos), s.kv.value_f16, 1);
      }
    });
    project_qkv(team, L, s.xb.get(), n, s.q, s.k, s.v, qkv_post.then());
    clock.lap(Step::Qkv, q_dim + 2 * kv_dim, dim, n);
    qkv_post.after();
    clock.lap(Step::QkvPost);
    attention(team, c, s, l, runs, n);
    clock.lap(Step::Attention);

    // x += att_out @ Wo (gemma3: rmsnorm'd first); xb = rmsnorm(x)
    TokenStep ffn_norm(team, n, [&](int t) {
      rmsnorm_rows(L.post_attn_norm, s.proj + t * dim, 1, dim, c.rms_eps);
      add(x + t * dim, s.proj + t * dim, dim);
      rmsnorm(s.xb.get() + t * dim, x + t * dim, L.ffn_norm.f32(), dim, c.rms_eps);
    });
    matmul(team, L.wo, s.att_out, n, s.proj, ffn_norm.then());
    clock.lap(Step::Wo, dim, q_dim, n);
    ffn_norm.after();
    clock.lap(Step::FfnNorm);

    // feed-forward: x += (act(xb @ Wgate) * (xb @ Wup)) @ Wdown, act = silu
    // (SwiGLU) or tanh-GELU (GeGLU, gemma3; which also rmsnorms the result)
    TokenStep activation(team, n, [&](int t) {
      float* gate = s.gate + static_cast<size_t>(t) * ffn;
      const float* up = s.up + static_cast<size_t>(t) * ffn;
      if (c.ffn_act == FfnActivation::GeluTanh) {
        gelu_tanh_mul(gate, gate, up, ffn);
      } else {
        silu_mul(gate, gate, up, ffn);
      }
    });
    project_gate_up(team, L.w_gate_up, s.xb.get(), n, s.gate, s.up, activation.then());
    clock.lap(Step::GateUp, 2 * int64_t{ffn}, dim, n);
    activation.after();
    clock.lap(Step::Activation);
    TokenStep residual(team, n, [&](int t) {
      rmsnorm_rows(L.post_ffn_norm, s.proj + t * dim, 1, dim, c.rms_eps);
      add(x + t * dim, s.proj + t * dim, dim);
    });
    matmul(team, L.w_down, s.gate, n, s.proj, residual.then());
    clock.lap(Step::Down, dim, ffn, n);
    residual.after();
    clock.lap(Step::Residual);
  }

  // logits = rmsnorm(x) @ Wout, for the last token of each run or for all of them
  if (all_logits != nullptr) {
    for_tokens(team, n, [&](int t) {
      rmsnorm(s.xb.get() + t * dim, x + t * dim, w.output_norm.f32(), dim, c.rms_eps);
    });
    matmul(team, w.output, s.xb.get(), n, all_logits);
    clock.lap(Step::Output, w.output.rows, dim, n);
  } else {
    const int n_runs = static_cast<int>(runs.size());
    for_tokens(team, n_runs, [&](int i) {
      int last = -1;
      for (int j = 0; j <= i; ++j) last += runs[j].n;
      rmsnorm(s.xb.get() + i * dim, x + last * dim, w.output_norm.f32(), dim, c.rms_eps);
    });
    matmul(team, w.output, s.xb.get(), n_runs, s.logits.get());
    clock.lap(Step::Output, w.output.rows, dim, n_runs);
  }
}

// Below this many multiply-adds per layer a forward pass runs on the
// calling thread alone: the barriers would cost more than the work
// (stories260K decode).
constexpr int64_t kMinParallelLayer = 1 << 17;

}  // namespace

void forward(const ModelConfig& c, const Weights& w, RunState& s, const int32_t* tokens,
             std::span<const BatchRun> runs, float* all_logits, const std::function<bool()>& stop) {
  apply_simd_target_from_env();
  int n = 0;  // tokens in the batch
  for (const BatchRun& r : runs) n += r.n;
  const int64_t layer_work =
      int64_t{n} * c.dim * (2 * c.q_dim() + 2 * c.kv_dim() + 3 * int64_t{c.ffn_dim});
  s.planned_threads = layer_work >= kMinParallelLayer ? std::min(omp_get_max_threads(), s.n_scratch) : 1;
  // A decode pass (one token) may run on fewer threads (decode_threads.h).
  const bool decode = n == 1;
  const DecodeThreads::Pick pick = decode ? decode_threads().next(s.planned_threads) : DecodeThreads::Pick{};
  const int threads = decode ? pick.threads : s.planned_threads;
  bool stopped = false;
  ForwardProfile* profile = recording_forward_profile();
  const auto start = std::chrono::steady_clock::now();
  run_team(
      threads, [&](Team& team) { forward_pass(team, c, w, s, tokens, runs, n, all_logits, stop, stopped, profile); },
      profile != nullptr ? recording_barrier_wait() : nullptr);
  if (stopped) throw EvalStopped();
  if (decode) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
    decode_threads().record(s.planned_threads, pick, ns.count());
  }
  if (profile != nullptr) {
    ++profile->passes;
    profile->tokens += n;
    profile->thread_passes += threads;
  }
}

}  // namespace ck
