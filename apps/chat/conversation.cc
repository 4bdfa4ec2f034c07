#include "apps/chat/conversation.h"

#include <algorithm>
#include <stdexcept>

#include "runtime/context_shift.h"

namespace ck::app {

Conversation::Conversation(const tok::Tokenizer& tokenizer, tok::ChatTemplate tmpl, std::string system_prompt)
    : tokenizer_(tokenizer), tmpl_(std::move(tmpl)), system_(std::move(system_prompt)) {}

void Conversation::add(std::string role, std::string content) {
  messages_.push_back({std::move(role), std::move(content)});
}

bool Conversation::drop_last(const std::string& role) {
  if (messages_.empty() || messages_.back().role != role) return false;
  messages_.pop_back();
  return true;
}

void Conversation::clear() { messages_.clear(); }

size_t Conversation::drop_oldest_exchange() {
  // The first message and the replies up to the next user message; never the
  // last message.
  size_t n = 1;
  while (n < messages_.size() && messages_[n].role != "user") ++n;
  if (n >= messages_.size()) return 0;
  messages_.erase(messages_.begin(), messages_.begin() + static_cast<std::ptrdiff_t>(n));
  return n;
}

void Conversation::set_system(std::string system_prompt) { system_ = std::move(system_prompt); }

std::string Conversation::render() const {
  std::vector<tok::ChatMessage> all;
  if (!system_.empty()) all.push_back({"system", system_});
  all.insert(all.end(), messages_.begin(), messages_.end());
  return tok::render_chat(tmpl_, all, /*add_generation_prompt=*/true);
}

std::vector<int32_t> Conversation::prompt_tokens() const {
  return tokenizer_.encode(render(), /*add_special=*/true, /*parse_special=*/true);
}

int Conversation::system_tokens(std::span<const int32_t> prompt) const {
  std::vector<tok::ChatMessage> system;
  if (!system_.empty()) system.push_back({"system", system_});
  const std::string text = tok::render_chat(tmpl_, system, /*add_generation_prompt=*/false);
  return static_cast<int>(common_prefix(tokenizer_.encode(text, /*add_special=*/true, /*parse_special=*/true), prompt));
}

size_t common_prefix(std::span<const int32_t> a, std::span<const int32_t> b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

std::span<const float> CachedTokens::sync(Session& session, std::span<const int32_t> target, int& n_evaluated) {
  if (target.empty()) throw std::logic_error("CachedTokens::sync: nothing to evaluate");
  if (static_cast<size_t>(session.n_ctx()) < target.size()) {
    throw std::runtime_error("the conversation needs " + std::to_string(target.size()) +
                             " tokens, more than the context of " + std::to_string(session.n_ctx()));
  }
  // Keep at most target.size() - 1 tokens: the last one must be evaluated
  // again to get its logits.
  const size_t keep = std::min(common_prefix(tokens_, target), target.size() - 1);
  session.truncate(static_cast<int>(keep));
  tokens_.resize(keep);
  const auto rest = target.subspan(keep);
  std::span<const float> logits;
  try {
    logits = session.eval(rest);
  } catch (const EvalStopped&) {
    session.truncate(static_cast<int>(keep));  // drop the batches that finished: the cache matches tokens_
    throw;
  }
  tokens_.insert(tokens_.end(), rest.begin(), rest.end());
  n_evaluated = static_cast<int>(rest.size());
  return logits;
}

std::span<const float> CachedTokens::push(Session& session, int32_t token) {
  const auto logits = session.eval(std::span<const int32_t>(&token, 1));
  tokens_.push_back(token);
  return logits;
}

std::span<const float> CachedTokens::shift_push(Session& session, int n_keep, int32_t token, int& n_reevaluated) {
  return shift_and_eval(session, tokens_, n_keep, token, n_reevaluated);
}

void CachedTokens::reset(Session& session) {
  session.reset();
  tokens_.clear();
}

}  // namespace ck::app
