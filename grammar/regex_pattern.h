// JSON schema's "pattern" (an ECMA-262 regular expression, which matches
// anywhere in the string unless anchored with ^ and $) as a GBNF expression
// for the JSON string, quotes included. The supported subset is
// llama.cpp's: literals, '.', classes [...] [^...] with ranges, \d \w \s
// \D \W \S, escapes (\n \t \xHH \uHHHH, escaped punctuation), groups
// (...) (?:...) (?<name>...), alternation, ? * + {m} {m,} {m,n} (lazy or
// not: the same strings), and ^ $ at the ends of the pattern or of its
// top-level alternatives. Refused by name: lookarounds, backreferences,
// word boundaries, Unicode property escapes, anchors elsewhere.
//
// The grammar writes each character as JSON does (" as \", controls as
// \n or \u00XX), and only that way; an unanchored side is `char*`, so the
// expression refers to the JSON grammar's rule `char`.
#pragma once
#include <string>

namespace ck::grammar {

// Throws std::runtime_error ("pattern ...: what is wrong") for an invalid or
// unsupported pattern.
std::string pattern_to_gbnf(const std::string& pattern);

}  // namespace ck::grammar
