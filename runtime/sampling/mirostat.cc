#include "runtime/sampling/mirostat.h"

#include <algorithm>
#include <cmath>

#include "runtime/sampling/draw.h"

namespace ck::sampling {

int32_t MirostatBound::draw_and_learn(Candidates& c, double draw) {
  c.softmax();
  const size_t i = pick(c, draw);
  mu_ -= eta_ * (-std::log2(c[i].p) - tau_);
  return c[i].id;
}

double MirostatV1::zipf_k(const Candidates& sorted, int m, double mu, int n_vocab) {
  double sum_tb = 0.0, sum_tt = 0.0;
  for (size_t i = 0; i + 1 < static_cast<size_t>(m) && i + 1 < sorted.size(); ++i) {
    const double t = std::log(static_cast<double>(i + 2) / static_cast<double>(i + 1));
    const double b = std::log(static_cast<double>(sorted[i].p) / static_cast<double>(sorted[i + 1].p));
    sum_tb += t * b;
    sum_tt += t * t;
  }
  if (sum_tt == 0.0) return 1.0;  // a single candidate (or m = 1): nothing to fit
  const double s = sum_tb / sum_tt;
  const double e = s - 1.0;
  // e -> 0: e / (1 - N^-e) -> 1 / ln N.
  const double zipf_norm = std::abs(e) < 1e-9 ? 1.0 / std::log(static_cast<double>(n_vocab))
                                               : e / (1.0 - std::pow(static_cast<double>(n_vocab), -e));
  return std::pow(zipf_norm * std::exp2(mu), 1.0 / s);
}

int32_t MirostatV1::sample(Candidates& c, double draw) {
  c.softmax();
  const double k = zipf_k(c, m_, bound_.mu(), n_vocab_);
  // Probabilities that underflowed to 0 make the fit infinite or NaN: keep
  // the most likely token then, as for any k below 1.
  const double keep = std::isnan(k) ? 1.0 : std::clamp(k, 1.0, static_cast<double>(c.size()));
  c.truncate(static_cast<size_t>(keep));
  return bound_.draw_and_learn(c, draw);
}

int32_t MirostatV2::sample(Candidates& c, double draw) {
  c.softmax();
  size_t keep = 0;
  while (keep < c.size() && -std::log2(c[keep].p) <= bound_.mu()) ++keep;
  c.truncate(keep == 0 ? 1 : keep);
  return bound_.draw_and_learn(c, draw);
}

}  // namespace ck::sampling
