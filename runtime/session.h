// One inference context: the run state (activations, logits) and the KV cache,
// allocated once. eval() appends tokens and runs the forward pass.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <vector>

#include "runtime/model.h"

namespace ck {

struct SessionOptions {
  int n_ctx = 0;      // 0 = the model's context length
  int n_batch = 512;  // tokens per prefill batch
  // A context longer than the model was trained for (llama.cpp allows it;
  // quality drops past the trained length, so the apps warn). Off: refused.
  bool allow_longer_context = false;
};

// What eval() throws when the stop check set with Session::set_stop_check
// says yes: the evaluation stopped between two layers. The positions of the
// batch it was in are not kept (n_past counts only finished batches).
class EvalStopped : public std::runtime_error {
 public:
  EvalStopped() : std::runtime_error("evaluation stopped") {}
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

  // Checked between the layers of every forward pass: when it returns true,
  // eval() stops and throws EvalStopped (Ctrl-C during a long prompt). Empty
  // (the default) = never stop.
  void set_stop_check(std::function<bool()> stop);

  // Like eval(), but writes the logits of every token: out = n_tokens x n_vocab.
  void eval_all(std::span<const int32_t> tokens, std::vector<float>& out);

  int n_past() const;
  int n_ctx() const;
  void reset();               // forget everything (n_past = 0)
  void truncate(int n_past);  // keep the first n_past positions
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
