// Grammars come from the command line (--grammar, --grammar-file) and from
// JSON schemas: the parser must refuse bad text with a GrammarError, never
// crash or hang, and the matcher must run any parsed grammar on any text.
// Input: grammar text, then a NUL byte and a text to match. An input that
// starts with '{' is also tried as a JSON schema: whatever the converter
// accepts must give a grammar the parser accepts.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "grammar/json_schema.h"
#include "grammar/matcher.h"
#include "grammar/parser.h"
#include "grammar/utf8_tokens.h"

namespace {

void match(const ck::grammar::Grammar& g, std::string_view text) {
  ck::grammar::MatchState s(g);
  int n = 0;
  for (uint32_t cp : ck::grammar::decode_utf8(text).code_points) {
    if (s.dead() || ++n > 64) break;  // bounded: ambiguous grammars grow their stacks
    s = s.advance(cp);
  }
  (void)s.can_end();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view grammar_text = input.substr(0, nul);
  const std::string_view text = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  try {
    match(ck::grammar::parse_grammar(grammar_text), text);
  } catch (const std::runtime_error&) {  // a GrammarError, or a grammar too ambiguous to match
  }
  if (!grammar_text.empty() && grammar_text[0] == '{') {
    std::string gbnf;
    try {
      gbnf = ck::grammar::json_schema_to_gbnf(grammar_text);
    } catch (const std::runtime_error&) {
      return 0;
    }
    const ck::grammar::Grammar g = ck::grammar::parse_grammar(gbnf);  // a GrammarError here is a finding
    try {
      match(g, text);
    } catch (const std::runtime_error&) {  // too ambiguous: not for schemas the converter accepts, but not a crash
    }
  }
  return 0;
}
