#include "runtime/sampling/mirostat.h"

#include <cmath>

#include "runtime/sampling/draw.h"

namespace ck::sampling {

int32_t MirostatV2::sample(Candidates& c, double draw) {
  c.softmax();
  size_t keep = 0;
  while (keep < c.size() && -std::log2(c[keep].p) <= mu_) ++keep;
  c.truncate(keep == 0 ? 1 : keep);
  c.softmax();
  const size_t i = pick(c, draw);
  mu_ -= eta_ * (-std::log2(c[i].p) - tau_);
  return c[i].id;
}

}  // namespace ck::sampling
