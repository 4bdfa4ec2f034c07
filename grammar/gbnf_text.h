// Writing GBNF text: string literals and character classes that match
// given code points exactly, whatever they are.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "grammar/grammar.h"

namespace ck::grammar {

// A GBNF string literal matching the UTF-8 `text` exactly.
std::string gbnf_literal(const std::string& text);
// A GBNF character class "[...]" matching exactly the code points of `ranges`.
std::string gbnf_class(const std::vector<CharRange>& ranges);
// `cp` as UTF-8.
std::string utf8_of(uint32_t cp);

}  // namespace ck::grammar
