// Parses GBNF text (llama.cpp's grammars/README.md): `name ::= alternatives`
// rules; alternation `|`, groups `( )`, repetition `* + ? {m} {m,} {m,n}`,
// string literals "..." and character classes [...] ([^...] negated, a-z
// ranges) with the escapes \n \r \t \\ \" \[ \] \- \^ \xHH \uHHHH
// \UHHHHHHHH, `.` for any character, rule references and # comments. A rule
// ends at the end of its line, except inside parentheses or after `|` or
// `::=`. The grammar starts at the rule `root`.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

#include "grammar/grammar.h"

namespace ck::grammar {

// "line L, column C: what is wrong" (both from 1; the column counts bytes).
class GrammarError : public std::runtime_error {
 public:
  GrammarError(int line, int column, const std::string& what);
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  int line_, column_;
};

// Throws GrammarError for a syntax error, an undefined or missing rule (root
// included), a repetition count above 1000, or left recursion (a rule that
// can reach itself before matching a character: the matcher could not
// finish).
Grammar parse_grammar(std::string_view text);

}  // namespace ck::grammar
