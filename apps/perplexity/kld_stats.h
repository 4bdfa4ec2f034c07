// KL divergence of a model against a saved reference (kld_file.h), with the
// statistics llama-perplexity --kl-divergence prints: PPL of both and their
// ratio, KLD mean/percentiles, Δp (change of the probability of the right
// token) and how often both models agree on the most likely token.
#pragma once
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

#include "apps/perplexity/kld_file.h"
#include "apps/perplexity/nll.h"
#include "apps/perplexity/position_kld.h"

namespace ck::app {

// One position compared: `logits` of the model under test against the
// reference row of ck's top-k file. KLD(base || model) over the top-k bins
// plus the rest.
PositionKld compare_position(std::span<const float> logits, const BaseRow& base, int32_t target);

class KldStats {
 public:
  void add(const PositionKld& p);
  int64_t count() const { return nll_.count; }
  // One line per chunk: chunk, PPL, ln(PPL ratio), KLD, RMS Δp, same top.
  void print_chunk_line(std::FILE* out, int chunk) const;
  static void print_chunk_header(std::FILE* out);
  // The final blocks: perplexity, KL divergence and token probability statistics.
  void print_report(std::FILE* out) const;

 private:
  double log_ppl_ratio_error() const;
  double covariance_nll() const;

  NllStats nll_, nll_base_;
  double sum_nll_nll_base_ = 0;
  NllStats kld_;
  double sum_p_diff_ = 0, sum_p_diff2_ = 0, sum_p_diff4_ = 0;
  int64_t n_same_top_ = 0;
  std::vector<float> kld_values_, p_diff_values_;
};

// Linear interpolation between the closest ranks of sorted `values`.
double percentile(const std::vector<float>& sorted, double fraction);

}  // namespace ck::app
