#include "match_text.h"

#include "grammar/matcher.h"
#include "grammar/utf8_tokens.h"

namespace ck::test {
namespace {

grammar::MatchState run(const grammar::Grammar& g, std::string_view text) {
  grammar::MatchState s(g);
  for (uint32_t cp : grammar::decode_utf8(text).code_points) {
    if (s.dead()) break;
    s = s.advance(cp);
  }
  return s;
}

}  // namespace

bool matches(const grammar::Grammar& g, std::string_view text) { return run(g, text).can_end(); }
bool is_prefix(const grammar::Grammar& g, std::string_view text) { return !run(g, text).dead(); }

}  // namespace ck::test
