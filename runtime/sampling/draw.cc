#include "runtime/sampling/draw.h"

namespace ck::sampling {

size_t pick(Candidates& c, double draw) {
  c.softmax();
  double cum = 0.0;
  for (size_t i = 0; i < c.size(); ++i) {
    cum += c[i].p;
    if (draw < cum) return i;
  }
  return c.size() - 1;  // rounding left the sum just below 1
}

size_t most_likely(const Candidates& c) {
  size_t best = 0;
  for (size_t i = 1; i < c.size(); ++i) {
    const Candidate& x = c[i];
    if (x.logit > c[best].logit || (x.logit == c[best].logit && x.id < c[best].id)) best = i;
  }
  return best;
}

}  // namespace ck::sampling
