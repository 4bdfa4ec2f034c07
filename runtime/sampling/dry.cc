#include "runtime/sampling/dry.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ck::sampling {

bool dry_off(const DryParams& p) { return p.multiplier == 0.0f || p.base < 1.0f || p.penalty_last_n == 0; }

DryPenalty::DryPenalty(const DryParams& params, int n_vocab, const std::function<std::string(int32_t)>& token_text)
    : params_(params) {
  if (dry_off(params) || params.sequence_breakers.empty() || !token_text) return;
  for (int32_t id = 0; id < n_vocab; ++id) {
    const std::string text = token_text(id);
    for (const std::string& b : params.sequence_breakers) {
      if (!b.empty() && text.find(b) != std::string::npos) {
        breakers_.insert(id);
        break;
      }
    }
  }
}

void DryPenalty::apply(Candidates& c, std::span<const int32_t> recent) const {
  if (dry_off(params_)) return;
  if (params_.penalty_last_n > 0 && recent.size() > static_cast<size_t>(params_.penalty_last_n)) {
    recent = recent.last(static_cast<size_t>(params_.penalty_last_n));
  }
  const int n = static_cast<int>(recent.size());
  const int allowed = params_.allowed_length;
  if (n <= allowed) return;
  const int last = n - 1;
  // A repetition never reaches back over the most recent breaker.
  int limit = n;
  for (int i = 0; i < n; ++i) {
    if (breakers_.count(recent[static_cast<size_t>(last - i)]) != 0) {
      limit = i;
      break;
    }
  }
  if (limit < allowed) return;

  // For each earlier position j: how many tokens ending at j equal the tokens
  // ending the text. The token after j would extend that repetition by one.
  std::unordered_map<int32_t, int> longest;  // next token -> its longest repetition
  for (int j = last - 1; j >= 0; --j) {
    int len = 0;
    while (len < limit && j - len >= 0 && recent[static_cast<size_t>(j - len)] == recent[static_cast<size_t>(last - len)]) {
      ++len;
    }
    if (len < allowed) continue;
    int& best = longest[recent[static_cast<size_t>(j + 1)]];
    best = std::max(best, len);
  }
  if (longest.empty()) return;

  // base^exponent stays a finite float.
  const int max_exponent = params_.base > 1.000001f ? static_cast<int>(88.7228391f / std::log(params_.base)) : 0;
  for (Candidate& x : c.items()) {
    const auto it = longest.find(x.id);
    if (it == longest.end() || breakers_.count(x.id) != 0) continue;
    int exponent = it->second - allowed;
    if (max_exponent > 0) exponent = std::min(exponent, max_exponent);
    x.logit -= params_.multiplier * std::pow(params_.base, static_cast<float>(exponent));
  }
  c.logits_changed();
}

}  // namespace ck::sampling
