#include "apps/perplexity/kld_stats.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ck::app {
namespace {

// Mean and its standard error; no error below 10 samples (as llama.cpp).
std::pair<double, double> mean_and_error(double sum, double sum2, int64_t count) {
  if (count < 1) return {0.0, 0.0};
  const double f = sum / static_cast<double>(count);
  double df = sum2 / static_cast<double>(count) - f * f;
  df = df > 0 && count > 10 ? std::sqrt(df / static_cast<double>(count - 1)) : 0.0;
  return {f, df};
}

double median(const std::vector<float>& sorted) {
  const size_t n = sorted.size();
  return n % 2 == 0 ? 0.5 * (sorted[n / 2] + sorted[n / 2 - 1]) : sorted[n / 2];
}

}  // namespace

double percentile(const std::vector<float>& sorted, double fraction) {
  if (sorted.empty()) return 0.0;
  if (fraction <= 0) return sorted.front();
  if (fraction >= 1) return sorted.back();
  double p = fraction * static_cast<double>(sorted.size() - 1);
  const size_t ip = static_cast<size_t>(p);
  p -= static_cast<double>(ip);
  return (1 - p) * sorted[ip] + p * sorted[std::min(ip + 1, sorted.size() - 1)];
}

PositionKld compare_position(std::span<const float> logits, const BaseRow& base, int32_t target) {
  const float max_logit = *std::max_element(logits.begin(), logits.end());
  double sum_exp = 0;
  for (float v : logits) sum_exp += std::exp(v - max_logit);
  const double lse = max_logit + std::log(sum_exp);

  // KL over the reference's top-k tokens, then one bin for all the others.
  double kld = 0, p_top = 0, q_top = 0;
  for (size_t i = 0; i < base.ids.size(); ++i) {
    const double logp = base.logp[i];
    const double logq = logits[base.ids[i]] - lse;
    const double p = std::exp(logp);
    kld += p * (logp - logq);
    p_top += p;
    q_top += std::exp(logq);
  }
  const double p_rest = 1.0 - p_top;
  if (p_rest > 1e-12) kld += p_rest * (std::log(p_rest) - std::log(std::max(1.0 - q_top, 1e-300)));

  PositionKld r;
  r.kld = kld;
  r.nll = lse - logits[target];
  r.nll_base = -static_cast<double>(base.logp_target);
  r.p_diff = std::exp(-r.nll) - std::exp(-r.nll_base);
  r.same_top = !base.ids.empty() && argmax(logits) == base.ids[0];
  return r;
}

void KldStats::add(const PositionKld& p) {
  nll_.add(p.nll);
  nll_base_.add(p.nll_base);
  sum_nll_nll_base_ += p.nll * p.nll_base;
  kld_.add(p.kld);
  const double p_diff = p.p_diff;
  sum_p_diff_ += p_diff;
  sum_p_diff2_ += p_diff * p_diff;
  sum_p_diff4_ += p_diff * p_diff * p_diff * p_diff;
  n_same_top_ += p.same_top;
  kld_values_.push_back(static_cast<float>(p.kld));
  p_diff_values_.push_back(static_cast<float>(p_diff));
}

double KldStats::covariance_nll() const {
  const auto n = static_cast<double>(nll_.count);
  if (nll_.count < 10) return 0.0;
  return (sum_nll_nll_base_ / n - (nll_.sum / n) * (nll_base_.sum / n)) / (n - 1);
}

double KldStats::log_ppl_ratio_error() const {
  const double a = mean_and_error(nll_.sum, nll_.sum2, nll_.count).second;
  const double b = mean_and_error(nll_base_.sum, nll_base_.sum2, nll_base_.count).second;
  return std::sqrt(std::max(0.0, a * a + b * b - 2.0 * covariance_nll()));
}

void KldStats::print_chunk_header(std::FILE* out) {
  std::fprintf(out, "chunk             PPL               ln(PPL(Q)/PPL(base))          KL Divergence              "
                    "Δp RMS            Same top p\n");
}

void KldStats::print_chunk_line(std::FILE* out, int chunk) const {
  const auto log_ppl = mean_and_error(nll_.sum, nll_.sum2, nll_.count);
  const double ppl = std::exp(log_ppl.first);
  std::fprintf(out, "%4d    %9.4lf ± %9.4lf", chunk, ppl, ppl * log_ppl.second);
  std::fprintf(out, "    %10.5lf ± %10.5lf", log_ppl.first - nll_base_.mean(), log_ppl_ratio_error());
  const auto kld = mean_and_error(kld_.sum, kld_.sum2, kld_.count);
  std::fprintf(out, "    %10.5lf ± %10.5lf", kld.first, kld.second);
  const auto mse = mean_and_error(sum_p_diff2_, sum_p_diff4_, nll_.count);
  const double rms = std::sqrt(mse.first);
  std::fprintf(out, "    %6.3lf ± %6.3lf %%", 100.0 * rms, rms > 0 ? 100.0 * 0.5 / rms * mse.second : 0.0);
  const double top = static_cast<double>(n_same_top_) / static_cast<double>(nll_.count);
  std::fprintf(out, "    %6.3lf ± %6.3lf %%\n", 100.0 * top,
               nll_.count > 1 ? 100.0 * std::sqrt(top * (1 - top) / static_cast<double>(nll_.count - 1)) : 0.0);
}

void KldStats::print_report(std::FILE* out) const {
  if (nll_.count < 100) {
    std::fprintf(out, "(%lld positions: too few for the summary statistics, need 100)\n",
                 static_cast<long long>(nll_.count));
    return;
  }
  std::vector<float> kld = kld_values_, p_diff = p_diff_values_;
  std::sort(kld.begin(), kld.end());
  std::sort(p_diff.begin(), p_diff.end());

  const auto log_ppl = mean_and_error(nll_.sum, nll_.sum2, nll_.count);
  const auto log_ppl_base = mean_and_error(nll_base_.sum, nll_base_.sum2, nll_base_.count);
  const double ppl = std::exp(log_ppl.first), ppl_unc = ppl * log_ppl.second;
  const double ppl_base = std::exp(log_ppl_base.first), ppl_base_unc = ppl_base * log_ppl_base.second;
  const double cov = covariance_nll();
  std::fprintf(out, "====== Perplexity statistics ======\n");
  std::fprintf(out, "Mean PPL(Q)                   : %10.6lf ± %10.6lf\n", ppl, ppl_unc);
  std::fprintf(out, "Mean PPL(base)                : %10.6lf ± %10.6lf\n", ppl_base, ppl_base_unc);
  std::fprintf(out, "Cor(ln(PPL(Q)), ln(PPL(base))): %6.2lf%%\n", 100.0 * cov / (log_ppl.second * log_ppl_base.second));
  const double ratio_log = log_ppl.first - log_ppl_base.first, ratio_log_unc = log_ppl_ratio_error();
  std::fprintf(out, "Mean ln(PPL(Q)/PPL(base))     : %10.6lf ± %10.6lf\n", ratio_log, ratio_log_unc);
  std::fprintf(out, "Mean PPL(Q)/PPL(base)         : %10.6lf ± %10.6lf\n", std::exp(ratio_log),
               std::exp(ratio_log) * ratio_log_unc);
  const double ppl_cov = ppl * ppl_base * cov;
  std::fprintf(out, "Mean PPL(Q)-PPL(base)         : %10.6lf ± %10.6lf\n\n", ppl - ppl_base,
               std::sqrt(std::max(0.0, ppl_unc * ppl_unc + ppl_base_unc * ppl_base_unc - 2.0 * ppl_cov)));

  const auto kl = mean_and_error(kld_.sum, kld_.sum2, kld_.count);
  std::fprintf(out, "====== KL divergence statistics ======\n");
  std::fprintf(out, "Mean    KLD: %10.6lf ± %10.6lf\n", kl.first, kl.second);
  std::fprintf(out, "Maximum KLD: %10.6f\n", kld.back());
  const std::pair<const char*, double> kld_points[] = {{"99.9%", 0.999}, {"99.0%", 0.990}, {"95.0%", 0.950},
                                                       {"90.0%", 0.900}};
  for (const auto& [name, f] : kld_points) std::fprintf(out, "%-8sKLD: %10.6f\n", name, percentile(kld, f));
  std::fprintf(out, "Median  KLD: %10.6f\n", median(kld));
  const std::pair<const char*, double> kld_low[] = {{"10.0%", 0.100}, {" 5.0%", 0.050}, {" 1.0%", 0.010},
                                                    {" 0.1%", 0.001}};
  for (const auto& [name, f] : kld_low) std::fprintf(out, "%-8sKLD: %10.6f\n", name, percentile(kld, f));
  std::fprintf(out, "Minimum KLD: %10.6f\n\n", kld.front());

  const auto pd = mean_and_error(sum_p_diff_, sum_p_diff2_, nll_.count);
  std::fprintf(out, "====== Token probability statistics ======\n");
  std::fprintf(out, "Mean    Δp: %6.3lf ± %5.3lf %%\n", 100.0 * pd.first, 100.0 * pd.second);
  std::fprintf(out, "Maximum Δp: %6.3lf%%\n", 100.0 * p_diff.back());
  const std::pair<const char*, double> pd_points[] = {{"99.9%", 0.999}, {"99.0%", 0.990}, {"95.0%", 0.950},
                                                      {"90.0%", 0.900}, {"75.0%", 0.750}};
  for (const auto& [name, f] : pd_points) std::fprintf(out, "%-8sΔp: %6.3lf%%\n", name, 100.0 * percentile(p_diff, f));
  std::fprintf(out, "Median  Δp: %6.3lf%%\n", 100.0 * median(p_diff));
  const std::pair<const char*, double> pd_low[] = {{"25.0%", 0.250}, {"10.0%", 0.100}, {" 5.0%", 0.050},
                                                   {" 1.0%", 0.010}, {" 0.1%", 0.001}};
  for (const auto& [name, f] : pd_low) std::fprintf(out, "%-8sΔp: %6.3lf%%\n", name, 100.0 * percentile(p_diff, f));
  std::fprintf(out, "Minimum Δp: %6.3lf%%\n", 100.0 * p_diff.front());
  const auto mse = mean_and_error(sum_p_diff2_, sum_p_diff4_, nll_.count);
  const double rms = std::sqrt(mse.first);
  std::fprintf(out, "RMS Δp    : %6.3lf ± %5.3lf %%\n", 100.0 * rms, rms > 0 ? 100.0 * 0.5 / rms * mse.second : 0.0);
  const double top = static_cast<double>(n_same_top_) / static_cast<double>(nll_.count);
  std::fprintf(out, "Same top p: %6.3lf ± %5.3lf %%\n", 100.0 * top,
               100.0 * std::sqrt(top * (1.0 - top) / static_cast<double>(nll_.count - 1)));
}

}  // namespace ck::app
