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
  void reset(Session& session);
  int size() const { return static_cast<int>(tokens_.size()); }

 private:
  std::vector<int32_t> tokens_;
};

}  // namespace ck::app
