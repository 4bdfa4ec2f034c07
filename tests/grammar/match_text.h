// Whole-string matching for the grammar tests.
#pragma once
#include <string>
#include <string_view>

#include "grammar/grammar.h"

namespace ck::test {

// Whether `text` (UTF-8) is a complete match of `g`.
bool matches(const grammar::Grammar& g, std::string_view text);
// Whether `text` can be continued to a complete match (a prefix of one).
bool is_prefix(const grammar::Grammar& g, std::string_view text);

}  // namespace ck::test
