// A GBNF grammar (llama.cpp's grammars/README.md dialect) after parsing:
// rules of alternatives, each a sequence of character sets and rule
// references. Groups and repetitions (* + ? {m,n}) are already rewritten into
// helper rules, so that the matcher (matcher.h) only meets these two kinds.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ck::grammar {

struct CharRange {
  uint32_t lo, hi;  // code points, inclusive
};

struct Element {
  enum class Kind { Chars, Rule };
  Kind kind = Kind::Chars;
  std::vector<CharRange> ranges;  // Chars: the code points it matches...
  bool negated = false;           // ...or, when negated, any it does not ("." = negated, no ranges)
  uint32_t rule = 0;              // Rule: the index into Grammar::rules

  bool matches(uint32_t cp) const;
  // Whether some code point in [lo, hi] matches (for a cut-off UTF-8 sequence).
  bool matches_any(uint32_t lo, uint32_t hi) const;
};

using Sequence = std::vector<Element>;

struct Rule {
  std::string name;
  std::vector<Sequence> alternatives;  // an empty sequence matches the empty string
};

struct Grammar {
  std::vector<Rule> rules;
  uint32_t root = 0;
};

}  // namespace ck::grammar
