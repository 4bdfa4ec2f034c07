// DRY ("don't repeat yourself"), with llama.cpp's meaning: a token that would
// extend a sequence already seen in the recent text, by more than
// allowed_length tokens, loses multiplier * base^(length - allowed_length)
// from its logit. Sequence breakers (by default newline, ':', '"', '*') end
// the sequences: no repetition is counted across one, and a breaker token is
// never penalized.
//
// Unlike llama.cpp, a breaker is a token whose text contains a breaker string;
// llama.cpp also matches a breaker split over several tokens.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/sampling/candidates.h"

namespace ck::sampling {

struct DryParams {
  float multiplier = 0.0f;  // 0 = off
  float base = 1.75f;
  int allowed_length = 2;
  int penalty_last_n = 64;  // the window; -1 = all the text, 0 = off
  std::vector<std::string> sequence_breakers = {"\n", ":", "\"", "*"};
};

bool dry_off(const DryParams& p);

class DryPenalty {
 public:
  // `token_text` gives a token's text (to find the breakers among n_vocab tokens).
  DryPenalty(const DryParams& params, int n_vocab, const std::function<std::string(int32_t)>& token_text);
  // `recent`: the text so far, oldest first (the window is cut here).
  void apply(Candidates& c, std::span<const int32_t> recent) const;

 private:
  DryParams params_;
  std::unordered_set<int32_t> breakers_;
};

}  // namespace ck::sampling
