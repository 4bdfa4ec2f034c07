// The conversation and the KV cache's copy of it. Each turn the whole
// conversation is rendered through the chat template and tokenized; the
// tokens the cache already holds (the longest common prefix, compared token by
// token) are kept and only the rest is evaluated. Re-tokenizing the model's
// own answer can differ from the tokens it generated; the prefix rule then
// re-evaluates from the first difference, so the cache always equals the
// rendered conversation.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/session.h"
#include "tokenizer/chat_template.h"
#include "tokenizer/tokenizer.h"

namespace ck::app {

class Conversation {
 public:
  Conversation(const tok::Tokenizer& tokenizer, tok::ChatTemplate tmpl, std::string system_prompt);

  void add(std::string role, std::string content);
  // Removes the last message when it has `role` (/regen drops the answer,
  // a turn that does not fit drops the question); false if not.
  bool drop_last(const std::string& role);
  void clear();  // everything but the system prompt
  // Forgets the oldest question and its answer (the system prompt stays, and
  // so does the last message, the one being answered): what a full context
  // gives up first. Returns the messages removed, 0 when nothing can go.
  size_t drop_oldest_exchange();
  void set_system(std::string system_prompt);
  const std::string& system_prompt() const { return system_; }
  size_t size() const { return messages_.size(); }
  bool empty() const { return messages_.empty(); }
  const tok::ChatMessage& back() const { return messages_.back(); }

  // The conversation through the template, plus the assistant header.
  std::string render() const;
  // render(), as tokens.
  std::vector<int32_t> prompt_tokens() const;
  // The tokens of `prompt` (prompt_tokens()) that render the system prompt
  // (the template's default one when none is set), BOS included: what a
  // context shift keeps. Those the system message alone renders to and
  // `prompt` starts with, so a template that puts the system prompt inside
  // the first user turn keeps only the part before that turn's text.
  int system_tokens(std::span<const int32_t> prompt) const;

 private:
  const tok::Tokenizer& tokenizer_;
  tok::ChatTemplate tmpl_;
  std::string system_;
  std::vector<tok::ChatMessage> messages_;  // without the system message
};

size_t common_prefix(std::span<const int32_t> a, std::span<const int32_t> b);

// The tokens the session's KV cache holds, in order.
class CachedTokens {
 public:
  // Makes the cache hold exactly `target` (which must be non-empty) and
  // returns the logits of its last token. Sets `n_evaluated` to the tokens
  // actually run through the model. When the session's stop check stops the
  // evaluation, EvalStopped passes through with the cache at the common prefix.
  std::span<const float> sync(Session& session, std::span<const int32_t> target, int& n_evaluated);
  // A generated token, evaluated: returns its logits.
  std::span<const float> push(Session& session, int32_t token);
  // The same after a context shift of the full cache (runtime/context_shift.h)
  // keeping its first n_keep tokens; `n_reevaluated` = the moved tokens
  // evaluated again.
  std::span<const float> shift_push(Session& session, int n_keep, int32_t token, int& n_reevaluated);
  void reset(Session& session);
  int size() const { return static_cast<int>(tokens_.size()); }
  std::span<const int32_t> tokens() const { return tokens_; }

 private:
  std::vector<int32_t> tokens_;
};

}  // namespace ck::app
