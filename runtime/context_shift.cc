#include "runtime/context_shift.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ck {

int keep_count(int keep_flag, int n_prompt, bool add_bos) {
  if (keep_flag < -1) {
    throw std::invalid_argument("--keep must be -1 (the whole prompt) or >= 0, got " + std::to_string(keep_flag));
  }
  if (n_prompt < 0) throw std::invalid_argument("keep_count: negative prompt length");
  const int bos = add_bos ? 1 : 0;
  if (keep_flag == -1) return n_prompt;
  return std::min(keep_flag + bos, std::max(n_prompt, bos));
}

ContextShift plan_context_shift(int n_tokens, int n_ctx, int n_keep) {
  if (n_ctx < 1 || n_tokens < 1 || n_tokens > n_ctx || n_keep < 0) {
    throw std::invalid_argument("context shift of " + std::to_string(n_tokens) + " tokens in a context of " +
                                std::to_string(n_ctx) + " keeping " + std::to_string(n_keep) +
                                ": needs 0 < tokens <= context and keep >= 0");
  }
  // keep <= n_ctx / 2 < n_tokens when the context is full; a shift of a
  // context that is not full still keeps at most all but one token.
  const int keep = std::min({n_keep, n_ctx / 2, n_tokens - 1});
  const int discard = std::max(1, (n_tokens - keep) / 2);
  return {keep, discard};
}

std::span<const float> shift_and_eval(Session& session, std::vector<int32_t>& tokens, int n_keep, int32_t next,
                                      int& n_reevaluated) {
  if (static_cast<int>(tokens.size()) != session.n_past()) {
    throw std::logic_error("shift_and_eval: the token list does not match the session's cache");
  }
  const ContextShift s = plan_context_shift(static_cast<int>(tokens.size()), session.n_ctx(), n_keep);
  tokens.erase(tokens.begin() + s.keep, tokens.begin() + s.keep + s.discard);
  session.truncate(s.keep);
  tokens.push_back(next);
  const auto todo = std::span<const int32_t>(tokens).subspan(static_cast<size_t>(s.keep));
  n_reevaluated = static_cast<int>(todo.size()) - 1;
  try {
    return session.eval(todo);
  } catch (...) {
    tokens.resize(static_cast<size_t>(s.keep));  // the cache holds the kept start only
    session.truncate(s.keep);
    throw;
  }
}

}  // namespace ck
