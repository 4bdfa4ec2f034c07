#include "runtime/sampling/truncation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ck::sampling {

void top_k(Candidates& c, int k) {
  if (k > 0) c.keep_top(static_cast<size_t>(k));
}

void top_p(Candidates& c, float p) {
  if (p >= 1.0f || c.empty()) return;
  c.softmax();
  double cum = 0.0;
  size_t n = 0;
  while (n < c.size()) {
    cum += c[n++].p;
    if (cum >= p) break;
  }
  c.truncate(n);
}

void min_p(Candidates& c, float p) {
  if (p <= 0.0f || c.empty()) return;
  c.softmax();
  const float floor = p * c[0].p;
  size_t n = 1;
  while (n < c.size() && c[n].p >= floor) ++n;
  c.truncate(n);
}

void typical_p(Candidates& c, float p) {
  if (p >= 1.0f || c.size() < 2) return;
  c.softmax();
  double entropy = 0.0;
  for (const Candidate& x : c.items()) {
    if (x.p > 0.0f) entropy -= x.p * std::log(x.p);
  }
  // How far each surprise is from the entropy; the closest first.
  std::vector<double> distance(c.size());
  for (size_t i = 0; i < c.size(); ++i) distance[i] = std::abs(-std::log(c[i].p) - entropy);
  std::vector<size_t> order(c.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return distance[a] < distance[b]; });
  double cum = 0.0;
  size_t keep = order.size();
  for (size_t i = 0; i < order.size(); ++i) {
    cum += c[order[i]].p;
    if (cum > p) {
      keep = i + 1;
      break;
    }
  }
  std::vector<Candidate> kept;
  kept.reserve(keep);
  for (size_t i = 0; i < keep; ++i) kept.push_back(c[order[i]]);
  c.items() = std::move(kept);
  c.items_moved();
}

void xtc(Candidates& c, float probability, float threshold, float draw) {
  if (probability <= 0.0f || threshold > 0.5f || c.size() < 2 || draw >= probability) return;
  c.softmax();
  size_t last_above = 0;  // the least likely candidate at or above the threshold
  while (last_above + 1 < c.size() && c[last_above + 1].p >= threshold) ++last_above;
  if (last_above == 0 || c[0].p < threshold) return;
  c.items().erase(c.items().begin(), c.items().begin() + static_cast<std::ptrdiff_t>(last_above));
}

void temperature(Candidates& c, float temp) {
  for (Candidate& x : c.items()) x.logit /= temp;
}

}  // namespace ck::sampling
