#include "apps/perplexity/nll.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ck::app {

double token_nll(std::span<const float> logits, int32_t target) {
  if (logits.empty() || target < 0 || static_cast<size_t>(target) >= logits.size()) {
    throw std::out_of_range("token_nll: target " + std::to_string(target) + " outside a vocabulary of " +
                            std::to_string(logits.size()));
  }
  float max_logit = logits[0];
  for (float v : logits) max_logit = std::max(max_logit, v);
  double sum_exp = 0.0;
  for (float v : logits) sum_exp += std::exp(v - max_logit);
  return static_cast<double>(max_logit) + std::log(sum_exp) - static_cast<double>(logits[target]);
}

int32_t argmax(std::span<const float> logits) {
  int32_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i) {
    if (logits[i] > logits[best]) best = static_cast<int32_t>(i);
  }
  return best;
}

double NllStats::mean() const { return count > 0 ? sum / static_cast<double>(count) : 0.0; }

double NllStats::mean_error() const {
  if (count < 2) return 0.0;
  const double m = mean();
  const double var = sum2 / static_cast<double>(count) - m * m;
  return var > 0 ? std::sqrt(var / static_cast<double>(count - 1)) : 0.0;
}

double NllStats::ppl() const { return std::exp(mean()); }

double NllStats::ppl_error() const { return ppl() * mean_error(); }

}  // namespace ck::app
