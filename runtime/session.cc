#include "runtime/session.h"

#include <algorithm>
#include <stdexcept>
#include <string>

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
  int n_past = 0;
  std::function<bool()> stop;

  void check_tokens(std::span<const int32_t> tokens) const {
    const ModelConfig& c = model.config();
    if (tokens.empty()) throw std::runtime_error("eval: no tokens");
    if (n_past + tokens.size() > static_cast<size_t>(state.n_ctx)) {
      throw std::runtime_error("eval: " + std::to_string(tokens.size()) + " tokens after " + std::to_string(n_past) +
                               " do not fit in the context of " + std::to_string(state.n_ctx));
    }
    for (int32_t t : tokens) {
      if (t < 0 || t >= c.vocab_size) {
        throw std::runtime_error("eval: token id " + std::to_string(t) + " outside the vocabulary [0, " +
                                 std::to_string(c.vocab_size) + ")");
      }
    }
  }

  // Batches of at most n_batch; all_logits (n x vocab) or only the last token's.
  void run(std::span<const int32_t> tokens, float* all_logits) {
    check_tokens(tokens);
    const ModelConfig& c = model.config();
    for (size_t done = 0; done < tokens.size();) {
      const int n = static_cast<int>(std::min<size_t>(state.n_batch, tokens.size() - done));
      float* out = all_logits ? all_logits + done * c.vocab_size : nullptr;
      forward(c, model.weights(), state, tokens.data() + done, n, n_past, out, stop);
      n_past += n;
      done += n;
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
  const size_t bytes = run_state_bytes(c, n_ctx, n_batch, n_scratch);
  if (const auto avail = mem_available_bytes(); avail && bytes > *avail) {
    throw std::runtime_error("context " + std::to_string(n_ctx) + " needs " + mib(bytes) +
                             " for the KV cache and activations, but only " + mib(*avail) +
                             " is available (MemAvailable); use a smaller context (-c)");
  }
  impl_ = std::make_unique<Impl>(Impl{model, make_run_state(c, model.weights(), n_ctx, n_batch, n_scratch), bytes, 0, {}});
}

Session::~Session() = default;

std::span<const float> Session::eval(std::span<const int32_t> tokens) {
  impl_->run(tokens, nullptr);
  return {impl_->state.logits.get(), static_cast<size_t>(impl_->model.config().vocab_size)};
}

void Session::eval_all(std::span<const int32_t> tokens, std::vector<float>& out) {
  impl_->check_tokens(tokens);
  out.resize(tokens.size() * static_cast<size_t>(impl_->model.config().vocab_size));
  impl_->run(tokens, out.data());
}

void Session::set_stop_check(std::function<bool()> stop) { impl_->stop = std::move(stop); }

int Session::n_past() const { return impl_->n_past; }
int Session::n_ctx() const { return impl_->state.n_ctx; }
void Session::reset() { impl_->n_past = 0; }

void Session::truncate(int n_past) {
  if (n_past < 0 || n_past > impl_->n_past) {
    throw std::runtime_error("truncate: " + std::to_string(n_past) + " is not in [0, " +
                             std::to_string(impl_->n_past) + "]");
  }
  impl_->n_past = n_past;
}

size_t Session::memory_bytes() const { return impl_->bytes; }

}  // namespace ck
