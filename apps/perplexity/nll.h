// Per-token negative log-likelihood and its running statistics, computed the
// way llama.cpp's llama-perplexity does (float logits, double sums), so the
// numbers are comparable to the last printed digit.
#pragma once
#include <cstdint>
#include <span>

namespace ck::app {

// -log softmax(logits)[target] = max + log(sum exp(l - max)) - logits[target].
double token_nll(std::span<const float> logits, int32_t target);

// Index of the largest logit (the first one on ties).
int32_t argmax(std::span<const float> logits);

// Sums of NLL and NLL^2 over the scored tokens.
struct NllStats {
  double sum = 0;
  double sum2 = 0;
  int64_t count = 0;

  void add(double nll) { sum += nll; sum2 += nll * nll; ++count; }
  double mean() const;
  // Standard error of the mean NLL: sqrt((E[x^2] - E[x]^2) / (count - 1)).
  double mean_error() const;
  double ppl() const;        // exp(mean NLL)
  // d exp(x) = exp(x) dx: the standard error of the mean carried through exp.
  double ppl_error() const;
};

}  // namespace ck::app
