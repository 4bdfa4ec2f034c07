// The last step of the sampler chain: one token drawn from the candidates.
#pragma once
#include <cstddef>

#include "runtime/sampling/candidates.h"

namespace ck::sampling {

// The index of the candidate that `draw` (uniform in [0, 1)) lands on in the
// softmax of the candidates (computed here).
size_t pick(Candidates& c, double draw);

// The most likely candidate (ties: the lowest id).
size_t most_likely(const Candidates& c);

}  // namespace ck::sampling
