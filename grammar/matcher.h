// Where a grammar can be after some text: a set of stacks, llama.cpp's
// pushdown representation. A stack holds the positions still to finish,
// the innermost rule on top; every stack's top is a character set (the
// characters that may come next), or the stack is empty (the grammar is
// complete there). Advancing by a code point keeps the stacks whose top
// matches it, moved on past it and expanded again.
#pragma once
#include <compare>
#include <cstdint>
#include <vector>

#include "grammar/grammar.h"

namespace ck::grammar {

struct Position {
  uint32_t rule, alternative, element;
  auto operator<=>(const Position&) const = default;
};

using Stack = std::vector<Position>;

class MatchState {
 public:
  // The grammar's start: its root rule expanded. `grammar` must outlive this.
  explicit MatchState(const Grammar& grammar);
  // The state after `cp`; its stacks are empty when the grammar refuses it.
  // Both throw std::runtime_error when a grammar is so ambiguous that more
  // than 10000 stacks would be needed.
  MatchState advance(uint32_t cp) const;
  bool dead() const { return stacks_.empty(); }
  // Whether the text so far is a complete match.
  bool can_end() const;
  // Whether some code point in [lo, hi] could come next.
  bool accepts_any(uint32_t lo, uint32_t hi) const;
  const std::vector<Stack>& stacks() const { return stacks_; }

 private:
  MatchState(const Grammar& grammar, std::vector<Stack> stacks) : grammar_(&grammar), stacks_(std::move(stacks)) {}
  const Grammar* grammar_;
  std::vector<Stack> stacks_;  // sorted, without duplicates
};

}  // namespace ck::grammar
