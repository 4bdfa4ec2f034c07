#include "runtime/sampler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace ck {
namespace {

void check_params(const SamplerParams& p, int n_vocab) {
  auto fail = [](const std::string& what) { throw std::runtime_error("sampler: " + what); };
  if (n_vocab <= 0) fail("vocabulary size must be positive, got " + std::to_string(n_vocab));
  if (!(p.temp >= 0.0f) || !std::isfinite(p.temp)) fail("temperature must be >= 0, got " + std::to_string(p.temp));
  if (p.top_k < 0) fail("top-k must be >= 0 (0 = off), got " + std::to_string(p.top_k));
  if (!(p.top_p > 0.0f && p.top_p <= 1.0f)) fail("top-p must be in (0, 1], got " + std::to_string(p.top_p));
  if (!(p.min_p >= 0.0f && p.min_p <= 1.0f)) fail("min-p must be in [0, 1], got " + std::to_string(p.min_p));
  if (!(p.repeat_penalty > 0.0f) || !std::isfinite(p.repeat_penalty)) {
    fail("repeat penalty must be > 0 (1 = off), got " + std::to_string(p.repeat_penalty));
  }
  if (p.repeat_last_n < 0) fail("repeat-last-n must be >= 0, got " + std::to_string(p.repeat_last_n));
}

uint64_t pick_seed(uint64_t requested) {
  if (requested != Sampler::kRandomSeed) return requested;
  std::random_device rd;
  // Never hand back kRandomSeed itself: the printed seed must reproduce the run.
  return ((uint64_t{rd()} << 32) | rd()) & 0x7FFFFFFFFFFFFFFFull;
}

}  // namespace

Sampler::Sampler(const SamplerParams& params, int n_vocab)
    : params_(params), n_vocab_(n_vocab), seed_(pick_seed(params.seed)), rng_(seed_) {
  check_params(params, n_vocab);
  candidates_.reserve(static_cast<size_t>(n_vocab));
}

uint64_t Sampler::seed() const { return seed_; }

void Sampler::reset() {
  recent_.clear();
  rng_.seed(seed_);
}

void Sampler::accept(int32_t token) {
  if (params_.repeat_last_n == 0) return;
  recent_.push_back(token);
  while (recent_.size() > static_cast<size_t>(params_.repeat_last_n)) recent_.pop_front();
}

// The order is llama.cpp's default chain: repetition penalty, top-k, top-p,
// min-p, then temperature, then a draw. temp 0 is greedy after the penalty.
int32_t Sampler::sample(std::span<const float> logits) {
  if (logits.size() != static_cast<size_t>(n_vocab_)) {
    throw std::runtime_error("sampler: got " + std::to_string(logits.size()) + " logits for a vocabulary of " +
                             std::to_string(n_vocab_));
  }
  candidates_.clear();
  for (int32_t i = 0; i < n_vocab_; ++i) candidates_.emplace_back(logits[i], i);

  if (params_.repeat_penalty != 1.0f) {
    // Each distinct recent token once: a positive logit is divided, a negative one multiplied.
    const std::unordered_set<int32_t> seen(recent_.begin(), recent_.end());
    for (int32_t t : seen) {
      if (t < 0 || t >= n_vocab_) continue;
      float& l = candidates_[t].first;
      l = l > 0.0f ? l / params_.repeat_penalty : l * params_.repeat_penalty;
    }
  }

  // Highest logit first; ties go to the lower id so that greedy is deterministic.
  auto better = [](const std::pair<float, int32_t>& a, const std::pair<float, int32_t>& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  if (params_.temp == 0.0f) return std::min_element(candidates_.begin(), candidates_.end(), better)->second;

  size_t keep = candidates_.size();
  if (params_.top_k > 0) keep = std::min(keep, static_cast<size_t>(params_.top_k));
  std::partial_sort(candidates_.begin(), candidates_.begin() + keep, candidates_.end(), better);
  candidates_.resize(keep);

  // Probabilities of the survivors at temperature 1 drive top-p and min-p.
  const float max_logit = candidates_.front().first;
  std::vector<float>& probs = probs_;
  probs.resize(keep);
  double sum = 0.0;
  for (size_t i = 0; i < keep; ++i) sum += probs[i] = std::exp(candidates_[i].first - max_logit);

  if (params_.top_p < 1.0f) {
    double cum = 0.0;
    size_t n = 0;
    while (n < keep) {
      cum += probs[n++] / sum;
      if (cum >= params_.top_p) break;
    }
    keep = n;
  }
  if (params_.min_p > 0.0f) {
    // probs[0] is the largest: keep those with p >= min_p * p_max.
    size_t n = 1;
    while (n < keep && probs[n] >= params_.min_p * probs[0]) ++n;
    keep = n;
  }

  double total = 0.0;
  for (size_t i = 0; i < keep; ++i) {
    total += probs[i] = std::exp((candidates_[i].first - max_logit) / params_.temp);
  }
  // 53 random bits -> [0, 1): the same on every platform, unlike std's distributions.
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53 * total;
  double cum = 0.0;
  for (size_t i = 0; i < keep; ++i) {
    cum += probs[i];
    if (u < cum) return candidates_[i].second;
  }
  return candidates_[keep - 1].second;
}

}  // namespace ck
