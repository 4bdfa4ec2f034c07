// One KV cache slot of the server's Session and the request it is
// generating, if any: the tokens its cache holds, the tokens still to
// evaluate, and the request's sampler, text decoder and stop strings.
#pragma once
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "apps/server/stop_matcher.h"
#include "apps/server/task.h"
#include "runtime/grammar_constraint.h"
#include "runtime/sampler.h"
#include "tokenizer/tokenizer.h"

namespace ck::server {

// A request that ended in a step, told to its task only after the
// scheduler's stats count it (a client that reads /metrics right after its
// answer sees its slot free).
struct Ending {
  std::shared_ptr<Task> task;
  FinishReason reason = FinishReason::Stop;
  Usage usage;
  std::string error;  // set: a failure, told by Task::fail
  void tell() const;
};

struct Slot {
  int seq = 0;
  std::vector<int32_t> cached;   // the tokens whose keys and values the slot holds (= the session's n_past)
  std::vector<int32_t> pending;  // to evaluate next: the rest of the prompt, then each sampled token
  uint64_t last_used = 0;        // admission order, for reusing the least recently used slot

  // The request being generated; null when the slot is free.
  std::shared_ptr<Task> task;
  std::optional<Sampler> sampler;
  std::unique_ptr<GrammarConstraint> grammar;
  std::optional<tok::StreamDecoder> decoder;
  StopMatcher stop;
  Usage usage;
  bool prompt_done = false;  // the prompt is evaluated; each logits now give a token

  bool busy() const { return task != nullptr; }

  // Takes `task`, reusing the cached tokens it shares with its prompt;
  // returns how many (at most all but the last prompt token: its logits are
  // needed). The caller truncates the session's sequence to that.
  int start(std::shared_ptr<Task> task, const tok::Tokenizer& tokenizer, uint64_t order);

  // The logits after the last pending token: samples, streams the text to
  // the task, and either queues the token for the next step or finishes.
  // Returns the ending when the request finished.
  std::optional<Ending> take_logits(std::span<const float> logits, const tok::Tokenizer& tokenizer);

  // Ends the request (the remaining text flushed) and frees the slot; the
  // cached tokens stay for the next request's prefix. The caller tells the
  // task its ending.
  Ending finish(FinishReason reason);
  // Ends the request with an error and frees the slot (the caller tells).
  Ending fail(const std::string& error);
  // Frees the slot without telling the task anything more (cancelled).
  void release();
};

// Tokens `a` and `b` share at the start.
size_t common_prefix(std::span<const int32_t> a, std::span<const int32_t> b);

}  // namespace ck::server
