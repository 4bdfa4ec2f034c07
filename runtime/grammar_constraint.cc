#include "runtime/grammar_constraint.h"

#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace ck {

GrammarConstraint::GrammarConstraint(grammar::Grammar grammar, const tok::Tokenizer& tokenizer)
    : grammar_(std::make_unique<const grammar::Grammar>(std::move(grammar))),
      tokenizer_(tokenizer),
      state_(*grammar_) {
  tokens_.reserve(static_cast<size_t>(tokenizer.n_vocab()));
  for (int32_t id = 0; id < tokenizer.n_vocab(); ++id) {
    tokens_.push_back(grammar::decode_utf8(tokenizer.token_to_piece(id, /*render_special=*/false)));
  }
}

bool GrammarConstraint::complete() const { return pending_.empty() && state_.can_end(); }

std::optional<grammar::MatchState> GrammarConstraint::after(int32_t token) const {
  if (tokenizer_.is_eog(token)) return std::nullopt;
  const grammar::DecodedBytes* d = &tokens_[static_cast<size_t>(token)];
  // Tokens with no text (control tokens) would let the grammar stall.
  if (d->code_points.empty() && d->tail.empty() && !d->invalid) return std::nullopt;
  grammar::DecodedBytes joined;
  if (!pending_.empty()) {  // the last token's unfinished character comes first
    joined = grammar::decode_utf8(pending_ + tokenizer_.token_to_piece(token, false));
    d = &joined;
  }
  if (d->invalid) return std::nullopt;
  grammar::MatchState s = state_;
  for (uint32_t cp : d->code_points) {
    s = s.advance(cp);
    if (s.dead()) return std::nullopt;
  }
  if (!d->tail.empty()) {
    uint32_t lo = 0, hi = 0;
    grammar::tail_range(d->tail, lo, hi);
    if (!s.accepts_any(lo, hi)) return std::nullopt;
  }
  return s;
}

bool GrammarConstraint::allows(int32_t token) {
  if (tokenizer_.is_eog(token)) return complete();
  return after(token).has_value();
}

void GrammarConstraint::restrict(sampling::Candidates& c) {
  // Most tokens fail on their first character: test that once per
  // character before walking a token's whole text.
  std::unordered_map<uint32_t, bool> first_ok;
  for (sampling::Candidate& x : c.items()) {
    if (tokenizer_.is_eog(x.id)) {
      if (!complete()) x.logit = -INFINITY;
      continue;
    }
    const grammar::DecodedBytes& d = tokens_[static_cast<size_t>(x.id)];
    if (pending_.empty() && !d.code_points.empty()) {
      const uint32_t cp = d.code_points[0];
      auto it = first_ok.find(cp);
      if (it == first_ok.end()) it = first_ok.emplace(cp, state_.accepts_any(cp, cp)).first;
      if (!it->second) {
        x.logit = -INFINITY;
        continue;
      }
    }
    if (!after(x.id)) x.logit = -INFINITY;
  }
}

void GrammarConstraint::accept(int32_t token) {
  if (tokenizer_.is_eog(token)) return;  // the end: nothing follows
  std::optional<grammar::MatchState> next = after(token);
  if (!next) {
    throw std::logic_error("grammar: token " + std::to_string(token) + " is not allowed here");
  }
  state_ = std::move(*next);
  const grammar::DecodedBytes& d = tokens_[static_cast<size_t>(token)];
  pending_ = pending_.empty() ? d.tail : grammar::decode_utf8(pending_ + tokenizer_.token_to_piece(token, false)).tail;
}

void GrammarConstraint::reset() {
  state_ = grammar::MatchState(*grammar_);
  pending_.clear();
}

}  // namespace ck
