#include "grammar/matcher.h"

#include <algorithm>
#include <stdexcept>

namespace ck::grammar {
namespace {

// Ambiguous grammars multiply the stacks with every character (nested
// optional repetitions, ("a"?){0,100}); past this many the matcher gives up
// instead of eating the memory and time.
constexpr size_t kMaxStacks = 10000;

// Expands `s` until its top is a character set or it is empty, appending
// each stack that results (one per alternative of each rule on the way).
// Terminates because the parser refuses left recursion.
void expand(const Grammar& g, Stack s, std::vector<Stack>& out) {
  while (!s.empty()) {
    const Position top = s.back();
    const Sequence& seq = g.rules[top.rule].alternatives[top.alternative];
    if (top.element == seq.size()) {  // this rule is done: back to the one that referenced it
      s.pop_back();
      continue;
    }
    const Element& e = seq[top.element];
    if (e.kind == Element::Kind::Chars) break;
    s.pop_back();
    if (top.element + 1 < seq.size()) s.push_back({top.rule, top.alternative, top.element + 1});
    const auto& alternatives = g.rules[e.rule].alternatives;
    for (uint32_t a = 0; a < alternatives.size(); ++a) {
      Stack inner = s;
      inner.push_back({e.rule, a, 0});
      expand(g, std::move(inner), out);
    }
    return;
  }
  if (out.size() >= kMaxStacks) {
    throw std::runtime_error("grammar: more than " + std::to_string(kMaxStacks) +
                             " ways to go on at once; the grammar is too ambiguous (nested optional repetitions "
                             "such as (\"a\"?){0,100} do this)");
  }
  out.push_back(std::move(s));
}

void dedupe(std::vector<Stack>& stacks) {
  std::sort(stacks.begin(), stacks.end());
  stacks.erase(std::unique(stacks.begin(), stacks.end()), stacks.end());
}

const Element& top_element(const Grammar& g, const Stack& s) {
  const Position& p = s.back();
  return g.rules[p.rule].alternatives[p.alternative][p.element];
}

}  // namespace

MatchState::MatchState(const Grammar& grammar) : grammar_(&grammar) {
  const auto& alternatives = grammar.rules[grammar.root].alternatives;
  for (uint32_t a = 0; a < alternatives.size(); ++a) expand(grammar, {{grammar.root, a, 0}}, stacks_);
  dedupe(stacks_);
}

MatchState MatchState::advance(uint32_t cp) const {
  std::vector<Stack> next;
  for (const Stack& s : stacks_) {
    if (s.empty() || !top_element(*grammar_, s).matches(cp)) continue;
    Stack moved = s;
    ++moved.back().element;
    expand(*grammar_, std::move(moved), next);
  }
  dedupe(next);
  return MatchState(*grammar_, std::move(next));
}

bool MatchState::can_end() const {
  return std::any_of(stacks_.begin(), stacks_.end(), [](const Stack& s) { return s.empty(); });
}

bool MatchState::accepts_any(uint32_t lo, uint32_t hi) const {
  if (lo > hi) return false;
  return std::any_of(stacks_.begin(), stacks_.end(),
                     [&](const Stack& s) { return !s.empty() && top_element(*grammar_, s).matches_any(lo, hi); });
}

}  // namespace ck::grammar
