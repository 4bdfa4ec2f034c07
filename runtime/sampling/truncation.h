// The stages of the sampler chain that keep some candidates and drop the
// rest, or reshape the distribution, each with llama.cpp's meaning
// (src/llama-sampler.cpp there). Every stage keeps at least one candidate.
#pragma once
#include "runtime/sampling/candidates.h"

namespace ck::sampling {

// The k most likely; k <= 0: all.
void top_k(Candidates& c, int k);
// The most likely ones until their probabilities add up to p; p >= 1: all.
void top_p(Candidates& c, float p);
// Those at least p times as likely as the most likely one; p <= 0: all.
void min_p(Candidates& c, float p);
// Locally typical sampling: the candidates whose surprise (-log p) is closest
// to the distribution's entropy, until their probabilities add up to more
// than p; p >= 1: all.
void typical_p(Candidates& c, float p);
// XTC ("exclude top choices"): when `draw` (uniform in [0, 1)) is below
// `probability`, of the candidates at least `threshold` likely all but the
// least likely one are dropped. threshold > 0.5 (at most one can pass) or
// probability <= 0: no change.
void xtc(Candidates& c, float probability, float threshold, float draw);
// Divides the logits by temp (> 0).
void temperature(Candidates& c, float temp);

}  // namespace ck::sampling
