#include "runtime/sampling/penalties.h"

#include <unordered_map>

namespace ck::sampling {
namespace {

void penalize(Candidate& c, int count, const PenaltyParams& p) {
  c.logit = c.logit <= 0.0f ? c.logit * p.repeat : c.logit / p.repeat;
  c.logit -= static_cast<float>(count) * p.frequency + p.presence;
}

}  // namespace

bool penalties_off(const PenaltyParams& p) { return p.repeat == 1.0f && p.frequency == 0.0f && p.presence == 0.0f; }

void apply_penalties(Candidates& c, std::span<const int32_t> recent, const PenaltyParams& p) {
  if (penalties_off(p) || recent.empty()) return;
  std::unordered_map<int32_t, int> counts;
  for (int32_t t : recent) ++counts[t];
  if (c.indexed_by_id()) {  // the whole vocabulary in id order: visit only the seen tokens
    for (const auto& [id, n] : counts) {
      if (id >= 0 && static_cast<size_t>(id) < c.size()) penalize(c[static_cast<size_t>(id)], n, p);
    }
  } else {
    for (Candidate& x : c.items()) {
      if (const auto it = counts.find(x.id); it != counts.end()) penalize(x, it->second, p);
    }
  }
  c.logits_changed();
}

}  // namespace ck::sampling
