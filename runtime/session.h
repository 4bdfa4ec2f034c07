// One inference context: the run state (activations, logits) and the KV cache
// of one or more sequences, allocated once. eval() appends tokens to the
// first sequence and runs the forward pass; eval_batch() appends tokens to
// several sequences in one forward pass (continuous batching, apps/server).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <vector>

#include "runtime/model.h"
#include "runtime/run_state.h"

namespace ck {

struct SessionOptions {
  int n_ctx = 0;      // positions per sequence; 0 = the model's context length
  int n_batch = 512;  // tokens per prefill batch, and the most eval_batch takes
  int n_seq = 1;      // sequences (KV cache slots), each of n_ctx positions
  // A context longer than the model was trained for (llama.cpp allows it;
  // quality drops past the trained length, so the apps warn). Off: refused.
  bool allow_longer_context = false;
  // The KV cache's element types (-ctk/-ctv): IEEE halves by default, as
  // llama.cpp's; floats on request.
  KvCacheTypes kv_types;
};

// What eval() throws when the stop check set with Session::set_stop_check
// says yes: the evaluation stopped between two layers. The positions of the
// batch it was in are not kept (n_past counts only finished batches).
class EvalStopped : public std::runtime_error {
 public:
  EvalStopped() : std::runtime_error("evaluation stopped") {}
};

// Tokens for one sequence of an eval_batch call.
struct SeqTokens {
  int seq = 0;
  std::span<const int32_t> tokens;
};

class Session {
 public:
  // Computes the memory the KV cache and activations need and refuses, with
  // the number, a context that would not fit in available memory.
  Session(const Model& model, const SessionOptions& opts = {});
  ~Session();

  // Appends `tokens` at position n_past() (prefill in batches of n_batch when
  // more than one) and returns the logits (n_vocab) of the last token, valid
  // until the next eval. Throws, before running anything, if the tokens do
  // not fit in the context or an id is outside the vocabulary.
  std::span<const float> eval(std::span<const int32_t> tokens);

  // Appends each inputs[i].tokens to its sequence at that sequence's
  // n_past, all in one forward pass, and returns the logits of the last
  // token of each input: row i (n_vocab floats) for inputs[i], valid until
  // the next eval. Throws, before running anything, for no input, an input
  // without tokens, a sequence outside [0, n_seq) or named twice, tokens
  // that do not fit its context, more than n_batch tokens in all, or an id
  // outside the vocabulary.
  std::span<const float> eval_batch(std::span<const SeqTokens> inputs);

  // Checked between the layers of every forward pass: when it returns true,
  // eval() stops and throws EvalStopped (Ctrl-C during a long prompt). Empty
  // (the default) = never stop.
  void set_stop_check(std::function<bool()> stop);

  // Like eval(), but writes the logits of every token: out = n_tokens x n_vocab.
  void eval_all(std::span<const int32_t> tokens, std::vector<float>& out);

  int n_past(int seq = 0) const;
  int n_ctx() const;  // positions per sequence
  int n_seq() const;
  int n_batch() const;
  void reset();                            // forget everything (every n_past = 0)
  void truncate(int n_past, int seq = 0);  // keep the first n_past positions of `seq`
  size_t memory_bytes() const;  // KV cache + activations

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Thread count for the kernels (OpenMP). 0 = default_threads(); more than
// the CPUs (max_threads) is allowed, up to kMaxThreads (runtime/threads.h).
void set_threads(int n);
int default_threads();  // the number of physical cores

}  // namespace ck
