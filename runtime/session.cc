#include "runtime/session.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/forward.h"
#include "runtime/memory.h"
#include "runtime/run_state.h"
#include "runtime/threads.h"
#include "runtime/weights.h"

namespace ck {
namespace {

std::string mib(size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace

struct Session::Impl {
  const Model& model;
  RunState state;
  size_t bytes = 0;
  std::vector<int> n_past;  // per sequence
  std::function<bool()> stop;
  std::vector<BatchRun> batch_runs;   // eval_batch's scratch
  std::vector<int32_t> batch_tokens;

  void check_tokens(int seq, std::span<const int32_t> tokens) const {
    const ModelConfig& c = model.config();
    if (tokens.empty()) throw std::runtime_error("eval: no tokens");
    if (n_past[seq] + tokens.size() > static_cast<size_t>(state.n_ctx)) {
      throw std::runtime_error("eval: " + std::to_string(tokens.size()) + " tokens after " +
                               std::to_string(n_past[seq]) + " do not fit in the context of " +
                               std::to_string(state.n_ctx));
    }
    for (int32_t t : tokens) {
      if (t < 0 || t >= c.vocab_size) {
        throw std::runtime_error("eval: token id " + std::to_string(t) + " outside the vocabulary [0, " +
                                 std::to_string(c.vocab_size) + ")");
      }
    }
  }

  // Sequence 0 in batches of at most n_batch; all_logits (n x vocab) or only the last token's.
  void run(std::span<const int32_t> tokens, float* all_logits) {
    check_tokens(0, tokens);
    const ModelConfig& c = model.config();
    for (size_t done = 0; done < tokens.size();) {
      const BatchRun batch{.seq = 0, .pos = n_past[0], .n = static_cast<int>(std::min<size_t>(state.n_batch, tokens.size() - done))};
      float* out = all_logits ? all_logits + done * c.vocab_size : nullptr;
      forward(c, model.weights(), state, tokens.data() + done, {&batch, 1}, out, stop);
      n_past[0] += batch.n;
      done += batch.n;
    }
  }

  void check_seq(int seq) const {
    if (seq < 0 || seq >= state.n_seq) {
      throw std::runtime_error("sequence " + std::to_string(seq) + " is not in [0, " + std::to_string(state.n_seq) +
                               ")");
    }
  }
};

Session::Session(const Model& model, const SessionOptions& opts) {
  const ModelConfig& c = model.config();
  const int n_ctx = opts.n_ctx == 0 ? c.context_len : opts.n_ctx;
  if (n_ctx < 1 || (n_ctx > c.context_len && !opts.allow_longer_context)) {
    throw std::runtime_error("context size " + std::to_string(n_ctx) + " out of range: the model was trained for 1 to " +
                             std::to_string(c.context_len) + " tokens");
  }
  if (opts.n_batch < 1) throw std::runtime_error("batch size must be at least 1, got " + std::to_string(opts.n_batch));
  const int n_batch = std::min(opts.n_batch, n_ctx);
  apply_default_threads();
  // One score row per thread that attention may ever use.
  const int n_scratch = max_threads();
  if (opts.n_seq < 1) throw std::runtime_error("sequences must be at least 1, got " + std::to_string(opts.n_seq));
  const size_t bytes = run_state_bytes(c, n_ctx, opts.n_seq, n_batch, n_scratch, opts.kv_types);
  if (const auto avail = mem_available_bytes(); avail && bytes > *avail) {
    throw std::runtime_error("context " + std::to_string(n_ctx) + " needs " + mib(bytes) +
                             " for the KV cache and activations, but only " + mib(*avail) +
                             " is available (MemAvailable); use a smaller context (-c)");
  }
  impl_ = std::make_unique<Impl>(Impl{model,
                                      make_run_state(c, model.weights(), n_ctx, opts.n_seq, n_batch, n_scratch,
                                                     opts.kv_types),
                                      bytes, std::vector<int>(opts.n_seq, 0), {}, {}, {}});
}

Session::~Session() = default;

std::span<const float> Session::eval(std::span<const int32_t> tokens) {
  impl_->run(tokens, nullptr);
  return {impl_->state.logits.get(), static_cast<size_t>(impl_->model.config().vocab_size)};
}

std::span<const float> Session::eval_batch(std::span<const SeqTokens> inputs) {
  Impl& im = *impl_;
  if (inputs.empty()) throw std::runtime_error("eval_batch: no sequences");
  if (inputs.size() > static_cast<size_t>(im.state.n_seq)) {
    throw std::runtime_error("eval_batch: " + std::to_string(inputs.size()) + " inputs for " +
                             std::to_string(im.state.n_seq) + " sequences");
  }
  std::vector<BatchRun>& runs = im.batch_runs;  // reused: no allocation per step once grown
  std::vector<int32_t>& tokens = im.batch_tokens;
  runs.resize(inputs.size());
  tokens.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const SeqTokens& in = inputs[i];
    im.check_seq(in.seq);
    for (size_t j = 0; j < i; ++j) {
      if (inputs[j].seq == in.seq) throw std::runtime_error("eval_batch: sequence " + std::to_string(in.seq) + " named twice");
    }
    im.check_tokens(in.seq, in.tokens);
    runs[i] = {.seq = in.seq, .pos = im.n_past[in.seq], .n = static_cast<int>(in.tokens.size())};
    tokens.insert(tokens.end(), in.tokens.begin(), in.tokens.end());
  }
  if (tokens.size() > static_cast<size_t>(im.state.n_batch)) {
    throw std::runtime_error("eval_batch: " + std::to_string(tokens.size()) + " tokens in all, more than the batch size " +
                             std::to_string(im.state.n_batch));
  }
  const ModelConfig& c = im.model.config();
  forward(c, im.model.weights(), im.state, tokens.data(), runs, nullptr, im.stop);
  for (const BatchRun& r : runs) im.n_past[r.seq] += r.n;
  return {im.state.logits.get(), inputs.size() * static_cast<size_t>(c.vocab_size)};
}

void Session::eval_all(std::span<const int32_t> tokens, std::vector<float>& out) {
  impl_->check_tokens(0, tokens);
  out.resize(tokens.size() * static_cast<size_t>(impl_->model.config().vocab_size));
  impl_->run(tokens, out.data());
}

void Session::set_stop_check(std::function<bool()> stop) { impl_->stop = std::move(stop); }

int Session::n_past(int seq) const {
  impl_->check_seq(seq);
  return impl_->n_past[seq];
}
int Session::n_ctx() const { return impl_->state.n_ctx; }
int Session::n_seq() const { return impl_->state.n_seq; }
int Session::n_batch() const { return impl_->state.n_batch; }
void Session::reset() { std::fill(impl_->n_past.begin(), impl_->n_past.end(), 0); }

void Session::truncate(int n_past, int seq) {
  impl_->check_seq(seq);
  if (n_past < 0 || n_past > impl_->n_past[seq]) {
    throw std::runtime_error("truncate: " + std::to_string(n_past) + " is not in [0, " +
                             std::to_string(impl_->n_past[seq]) + "]");
  }
  impl_->n_past[seq] = n_past;
}

size_t Session::memory_bytes() const { return impl_->bytes; }

}  // namespace ck
