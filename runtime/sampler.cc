#include "runtime/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "runtime/sampling/draw.h"
#include "runtime/sampling/truncation.h"

namespace ck {
namespace {

using sampling::Candidate;

constexpr std::pair<std::string_view, SamplerStage> kStageNames[] = {
    {"penalties", SamplerStage::Penalties}, {"dry", SamplerStage::Dry},
    {"top_k", SamplerStage::TopK},          {"top-k", SamplerStage::TopK},
    {"typ_p", SamplerStage::TypicalP},      {"typical_p", SamplerStage::TypicalP},
    {"typical", SamplerStage::TypicalP},    {"typ-p", SamplerStage::TypicalP},
    {"top_p", SamplerStage::TopP},          {"top-p", SamplerStage::TopP},
    {"nucleus", SamplerStage::TopP},        {"min_p", SamplerStage::MinP},
    {"min-p", SamplerStage::MinP},          {"xtc", SamplerStage::Xtc},
    {"temperature", SamplerStage::Temperature}, {"temp", SamplerStage::Temperature},
};
constexpr std::pair<char, SamplerStage> kStageLetters[] = {
    {'e', SamplerStage::Penalties}, {'d', SamplerStage::Dry},  {'k', SamplerStage::TopK},
    {'y', SamplerStage::TypicalP},  {'p', SamplerStage::TopP}, {'m', SamplerStage::MinP},
    {'x', SamplerStage::Xtc},       {'t', SamplerStage::Temperature},
};

void check_params(const SamplerParams& p, int n_vocab) {
  auto fail = [](const std::string& what) { throw std::runtime_error("sampler: " + what); };
  auto finite = [](float v) { return std::isfinite(v); };
  if (n_vocab <= 0) fail("vocabulary size must be positive, got " + std::to_string(n_vocab));
  if (!(p.temp >= 0.0f) || !finite(p.temp)) fail("temperature must be >= 0, got " + std::to_string(p.temp));
  if (p.top_k < 0) fail("top-k must be >= 0 (0 = off), got " + std::to_string(p.top_k));
  if (!(p.top_p > 0.0f && p.top_p <= 1.0f)) fail("top-p must be in (0, 1], got " + std::to_string(p.top_p));
  if (!(p.min_p >= 0.0f && p.min_p <= 1.0f)) fail("min-p must be in [0, 1], got " + std::to_string(p.min_p));
  if (!(p.typical_p > 0.0f && p.typical_p <= 1.0f)) {
    fail("typical-p must be in (0, 1] (1 = off), got " + std::to_string(p.typical_p));
  }
  if (!(p.repeat_penalty > 0.0f) || !finite(p.repeat_penalty)) {
    fail("repeat penalty must be > 0 (1 = off), got " + std::to_string(p.repeat_penalty));
  }
  if (!finite(p.frequency_penalty)) fail("frequency penalty must be a number");
  if (!finite(p.presence_penalty)) fail("presence penalty must be a number");
  if (p.repeat_last_n < -1) fail("repeat-last-n must be >= -1 (-1 = all the text), got " + std::to_string(p.repeat_last_n));
  if (!(p.dry.multiplier >= 0.0f) || !finite(p.dry.multiplier)) {
    fail("DRY multiplier must be >= 0 (0 = off), got " + std::to_string(p.dry.multiplier));
  }
  if (!finite(p.dry.base)) fail("DRY base must be a number");
  if (p.dry.allowed_length < 0) fail("DRY allowed length must be >= 0, got " + std::to_string(p.dry.allowed_length));
  if (p.dry.penalty_last_n < -1) {
    fail("DRY penalty-last-n must be >= -1 (-1 = all the text), got " + std::to_string(p.dry.penalty_last_n));
  }
  if (!(p.xtc_probability >= 0.0f && p.xtc_probability <= 1.0f)) {
    fail("XTC probability must be in [0, 1], got " + std::to_string(p.xtc_probability));
  }
  if (!(p.xtc_threshold >= 0.0f && p.xtc_threshold <= 1.0f)) {
    fail("XTC threshold must be in [0, 1], got " + std::to_string(p.xtc_threshold));
  }
  if (p.mirostat < 0 || p.mirostat > 2) fail("mirostat must be 0 (off), 1 or 2, got " + std::to_string(p.mirostat));
  if (!(p.mirostat_tau >= 0.0f) || !finite(p.mirostat_tau)) fail("mirostat entropy must be >= 0");
  if (!(p.mirostat_eta >= 0.0f) || !finite(p.mirostat_eta)) fail("mirostat learning rate must be >= 0");
  for (const LogitBias& b : p.logit_bias) {
    if (b.token < 0 || b.token >= n_vocab) {
      fail("logit bias: token " + std::to_string(b.token) + " is not in the vocabulary of " +
           std::to_string(n_vocab) + " tokens");
    }
    if (std::isnan(b.bias)) fail("logit bias of token " + std::to_string(b.token) + " is not a number");
  }
}

uint64_t pick_seed(uint64_t requested) {
  if (requested != Sampler::kRandomSeed) return requested;
  std::random_device rd;
  // Never hand back kRandomSeed itself: the printed seed must reproduce the run.
  return ((uint64_t{rd()} << 32) | rd()) & 0x7FFFFFFFFFFFFFFFull;
}

size_t window_size(int n) { return n < 0 ? std::numeric_limits<size_t>::max() : static_cast<size_t>(n); }

}  // namespace

std::vector<SamplerStage> SamplerParams::default_order() {
  return {SamplerStage::Penalties, SamplerStage::Dry,  SamplerStage::TopK, SamplerStage::TypicalP,
          SamplerStage::TopP,      SamplerStage::MinP, SamplerStage::Xtc,  SamplerStage::Temperature};
}

std::vector<SamplerStage> parse_sampler_names(std::string_view names) {
  std::vector<SamplerStage> order;
  size_t at = 0;
  while (at <= names.size()) {
    const size_t end = std::min(names.find(';', at), names.size());
    const std::string_view name = names.substr(at, end - at);
    at = end + 1;
    if (name.empty()) continue;
    const auto* it = std::find_if(std::begin(kStageNames), std::end(kStageNames),
                                  [&](const auto& e) { return e.first == name; });
    if (it == std::end(kStageNames)) {
      throw std::invalid_argument("unknown sampler '" + std::string(name) +
                                  "' (known: penalties dry top_k typ_p top_p min_p xtc temperature)");
    }
    order.push_back(it->second);
  }
  return order;
}

std::vector<SamplerStage> parse_sampler_letters(std::string_view letters) {
  std::vector<SamplerStage> order;
  for (char l : letters) {
    const auto* it = std::find_if(std::begin(kStageLetters), std::end(kStageLetters),
                                  [&](const auto& e) { return e.first == l; });
    if (it == std::end(kStageLetters)) {
      throw std::invalid_argument(std::string("unknown sampler letter '") + l + "' (known: e d k y p m x t)");
    }
    order.push_back(it->second);
  }
  return order;
}

std::string sampler_names(std::span<const SamplerStage> order) {
  std::string out;
  for (SamplerStage s : order) {
    const auto* it = std::find_if(std::begin(kStageNames), std::end(kStageNames),
                                  [&](const auto& e) { return e.second == s; });
    out += (out.empty() ? "" : ";") + std::string(it->first);
  }
  return out;
}

Sampler::Sampler(const SamplerParams& params, int n_vocab, const TokenText& token_text)
    : params_(params),
      n_vocab_(n_vocab),
      seed_(pick_seed(params.seed)),
      rng_(seed_),
      keep_recent_(std::max(window_size(params.repeat_last_n),
                            sampling::dry_off(params.dry) ? 0 : window_size(params.dry.penalty_last_n))),
      mirostat1_(params.mirostat_tau, params.mirostat_eta, n_vocab),
      mirostat2_(params.mirostat_tau, params.mirostat_eta) {
  check_params(params, n_vocab);
  if (!sampling::dry_off(params.dry)) dry_.emplace(params.dry, n_vocab, token_text);
}

uint64_t Sampler::seed() const { return seed_; }

void Sampler::reset() {
  recent_.clear();
  rng_.seed(seed_);
  mirostat1_.reset();
  mirostat2_.reset();
  if (constraint_ != nullptr) constraint_->reset();
}

void Sampler::accept(int32_t token) {
  if (constraint_ != nullptr) constraint_->accept(token);
  remember(token);
}

void Sampler::accept_prompt(std::span<const int32_t> tokens) {
  for (int32_t t : tokens) remember(t);
}

void Sampler::remember(int32_t token) {
  if (keep_recent_ == 0) return;
  recent_.push_back(token);
  // Trimmed in steps, not per token: the windows only read the end.
  if (keep_recent_ != std::numeric_limits<size_t>::max() && recent_.size() > 2 * keep_recent_ + 64) {
    recent_.erase(recent_.begin(), recent_.end() - static_cast<std::ptrdiff_t>(keep_recent_));
  }
}

std::span<const int32_t> Sampler::window(int n) const {
  const std::span<const int32_t> all(recent_);
  return all.last(std::min(all.size(), window_size(n)));
}

// 53 random bits -> [0, 1): the same on every platform, unlike std's distributions.
double Sampler::draw() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

void Sampler::start(std::span<const float> logits) {
  candidates_.assign(logits);
  for (const LogitBias& b : params_.logit_bias) candidates_[static_cast<size_t>(b.token)].logit += b.bias;
  if (!params_.logit_bias.empty()) candidates_.drop_impossible();
}

int32_t Sampler::sample(std::span<const float> logits) {
  if (logits.size() != static_cast<size_t>(n_vocab_)) {
    throw std::runtime_error("sampler: got " + std::to_string(logits.size()) + " logits for a vocabulary of " +
                             std::to_string(n_vocab_));
  }
  start(logits);
  const int32_t token = run_chain();
  if (constraint_ == nullptr || constraint_->allows(token)) return token;
  // The token the chain chose breaks the constraint: filter every token
  // first, then run the chain again on what is left (llama.cpp's order).
  start(logits);
  constraint_->restrict(candidates_);
  candidates_.drop_impossible();
  if (candidates_.empty()) {
    throw std::runtime_error(
        "sampler: the grammar allows none of the tokens here (a logit bias may ban those it needs: --ignore-eos "
        "bans the end a complete grammar needs)");
  }
  return run_chain();
}

int32_t Sampler::run_chain() {
  using namespace sampling;
  Candidates& c = candidates_;
  if (c.empty()) throw std::runtime_error("sampler: the logit bias leaves no token to sample");
  const bool greedy = params_.temp <= 0.0f;
  if (params_.mirostat != 0) {
    if (greedy) return c[most_likely(c)].id;
    temperature(c, params_.temp);
    return params_.mirostat == 1 ? mirostat1_.sample(c, draw()) : mirostat2_.sample(c, draw());
  }
  for (SamplerStage stage : params_.order) {
    switch (stage) {
      case SamplerStage::Penalties:
        apply_penalties(c, window(params_.repeat_last_n),
                        {params_.repeat_penalty, params_.frequency_penalty, params_.presence_penalty});
        break;
      case SamplerStage::Dry:
        if (dry_) dry_->apply(c, recent_);
        break;
      // top-k, top-p and min-p always keep the most likely token: greedy needs none of them.
      case SamplerStage::TopK:
        if (!greedy) top_k(c, params_.top_k);
        break;
      case SamplerStage::TopP:
        if (!greedy) top_p(c, params_.top_p);
        break;
      case SamplerStage::MinP:
        if (!greedy) min_p(c, params_.min_p);
        break;
      case SamplerStage::TypicalP:
        typical_p(c, params_.typical_p);
        break;
      case SamplerStage::Xtc:
        if (params_.xtc_probability > 0.0f) xtc(c, params_.xtc_probability, params_.xtc_threshold, static_cast<float>(draw()));
        break;
      case SamplerStage::Temperature:
        if (!greedy) temperature(c, params_.temp);
        break;
    }
  }
  if (greedy) return c[most_likely(c)].id;
  return c[pick(c, draw())].id;
}

std::vector<Candidate> Sampler::last_distribution(size_t n) {
  candidates_.softmax();
  const size_t k = std::min(n, candidates_.size());
  return {candidates_.items().begin(), candidates_.items().begin() + static_cast<std::ptrdiff_t>(k)};
}

}  // namespace ck
