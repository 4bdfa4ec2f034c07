// A grammar applied to a real vocabulary (stories260K: byte tokens <0x00>
// .. <0xFF> beside its pieces): characters split over tokens, the end
// allowed only where the grammar is complete, control tokens never.
#include <catch2/catch.hpp>

#include <cmath>

#include "grammar/parser.h"
#include "runtime/grammar_constraint.h"
#include "runtime/model.h"

namespace {

const ck::Model& stories() {
  static const auto model = ck::Model::load(std::string(CK_SHARED_DATA) + "/models/stories260K.gguf");
  return *model;
}

// The token whose text is exactly `text`.
int32_t token_of(const ck::tok::Tokenizer& tok, const std::string& text) {
  for (int32_t id = 0; id < tok.n_vocab(); ++id) {
    if (tok.token_to_piece(id) == text) return id;
  }
  FAIL("no token spells '" << text << "'");
  return -1;
}

}  // namespace

TEST_CASE("grammar constraint: a character split over two byte tokens", "[grammar][issue13]") {
  const auto& tok = stories().tokenizer();
  ck::GrammarConstraint g(ck::grammar::parse_grammar(R"(root ::= "\u00e9" | "ab")"), tok);  // é = C3 A9
  const int32_t c3 = token_of(tok, "\xC3"), a9 = token_of(tok, "\xA9"), e4 = token_of(tok, "\xE4");
  const int32_t a = token_of(tok, "a"), eos = tok.eos();
  CHECK(g.allows(c3));      // may become é
  CHECK_FALSE(g.allows(e4));  // a 3-byte character: U+4000 and up, never é
  CHECK_FALSE(g.allows(token_of(tok, "\xF0")));  // a 4-byte one: U+10000 and up (F0's own bits are all 0)
  CHECK_FALSE(g.allows(a9));  // a continuation byte cannot start
  CHECK(g.allows(a));
  CHECK_FALSE(g.allows(eos));  // nothing matched yet
  CHECK_FALSE(g.allows(stories().tokenizer().bos()));  // a control token: no text
  g.accept(c3);
  CHECK_FALSE(g.complete());
  CHECK(g.allows(a9));
  CHECK_FALSE(g.allows(a));
  CHECK_FALSE(g.allows(eos));  // half a character is not the end
  g.accept(a9);
  CHECK(g.complete());
  CHECK(g.allows(eos));
  CHECK_FALSE(g.allows(a));
  CHECK_THROWS_AS(g.accept(a), std::logic_error);
  g.reset();
  CHECK_FALSE(g.complete());
  CHECK(g.allows(c3));
}

TEST_CASE("grammar constraint: restrict leaves exactly the allowed candidates", "[grammar][issue13]") {
  const auto& tok = stories().tokenizer();
  ck::GrammarConstraint g(ck::grammar::parse_grammar(R"(root ::= [0-9]+)"), tok);
  ck::sampling::Candidates c;
  c.assign(std::vector<float>(static_cast<size_t>(tok.n_vocab()), 0.0f));
  g.restrict(c);
  size_t kept = 0;
  for (const auto& x : c.items()) {
    if (x.logit == -INFINITY) continue;
    ++kept;
    const std::string piece = tok.token_to_piece(x.id);
    INFO(x.id << " '" << piece << "'");
    CHECK(piece.find_first_not_of("0123456789") == std::string::npos);
    CHECK(g.allows(x.id));
  }
  CHECK(kept >= 10);  // at least the ten digits
  CHECK(kept < 100);
}
