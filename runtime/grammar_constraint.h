// A grammar applied to a model's tokens (--grammar, --json-schema): a
// token is allowed when its bytes can continue the text within the grammar;
// an end-of-generation token only where the grammar is complete. The
// sampler (sampler.h) asks about the token it drew first and filters all
// candidates only when that one is refused.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/matcher.h"
#include "grammar/utf8_tokens.h"
#include "runtime/sampler.h"
#include "tokenizer/tokenizer.h"

namespace ck {

class GrammarConstraint : public TokenConstraint {
 public:
  // `tokenizer` must outlive this.
  GrammarConstraint(grammar::Grammar grammar, const tok::Tokenizer& tokenizer);
  bool allows(int32_t token) override;
  void restrict(sampling::Candidates& c) override;
  // Throws std::logic_error for a token the grammar does not allow.
  void accept(int32_t token) override;
  void reset() override;
  // Whether the text so far completes the grammar.
  bool complete() const;

 private:
  // The state after `token`; nullopt when the grammar refuses it.
  std::optional<grammar::MatchState> after(int32_t token) const;

  std::unique_ptr<const grammar::Grammar> grammar_;  // the states point into it
  const tok::Tokenizer& tokenizer_;
  std::vector<grammar::DecodedBytes> tokens_;  // each token's text, decoded once
  grammar::MatchState state_;
  std::string pending_;  // a UTF-8 sequence the last token began and did not finish
};

}  // namespace ck
