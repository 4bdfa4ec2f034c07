#include "runtime/sampling/candidates.h"

#include <algorithm>
#include <cmath>

namespace ck::sampling {
namespace {

bool more_likely(const Candidate& a, const Candidate& b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

}  // namespace

void Candidates::assign(std::span<const float> logits) {
  items_.resize(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) items_[i] = {static_cast<int32_t>(i), logits[i], 0.0f};
  sorted_ = false;
  indexed_ = true;
}

void Candidates::sort() {
  if (sorted_) return;
  std::sort(items_.begin(), items_.end(), more_likely);
  sorted_ = true;
  indexed_ = false;
}

void Candidates::keep_top(size_t k) {
  k = std::min(k, items_.size());
  if (!sorted_) {
    std::partial_sort(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(k), items_.end(), more_likely);
  }
  items_.resize(k);
  sorted_ = true;
  indexed_ = false;
}

void Candidates::truncate(size_t n) {
  if (n >= items_.size()) return;
  items_.resize(n);
  indexed_ = false;
}

void Candidates::drop_impossible() {
  const auto gone = std::remove_if(items_.begin(), items_.end(),
                                   [](const Candidate& c) { return c.logit == -INFINITY; });
  if (gone == items_.end()) return;
  items_.erase(gone, items_.end());
  indexed_ = false;
}

void Candidates::softmax() {
  sort();
  if (items_.empty()) return;
  const float max_logit = items_.front().logit;
  double sum = 0.0;
  for (Candidate& c : items_) sum += c.p = std::exp(c.logit - max_logit);
  for (Candidate& c : items_) c.p = static_cast<float>(c.p / sum);
}

}  // namespace ck::sampling
