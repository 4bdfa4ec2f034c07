// One inference context: the run state (activations, logits) and the KV cache,
// allocated once. eval() appends tokens and runs the forward pass.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/model.h"

namespace ck {

struct SessionOptions {
  int n_ctx = 0;      // 0 = the model's context length
  int n_batch = 512;  // tokens per prefill batch
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

// Thread count for the kernels (OpenMP). 0 = default_threads().
void set_threads(int n);
int default_threads();  // the number of physical cores

}  // namespace ck
