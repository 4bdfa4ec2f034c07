// Penalties on the tokens the text already holds, with llama.cpp's meanings:
// repetition (a seen token's positive logit divided by the penalty, a
// negative one multiplied), frequency (minus the penalty times the count)
// and presence (minus the penalty once), over the last tokens of a window.
#pragma once
#include <cstdint>
#include <span>

#include "runtime/sampling/candidates.h"

namespace ck::sampling {

struct PenaltyParams {
  float repeat = 1.0f;     // 1 = off
  float frequency = 0.0f;  // 0 = off
  float presence = 0.0f;   // 0 = off
};

bool penalties_off(const PenaltyParams& p);

// `recent`: the window of tokens to penalize, oldest first.
void apply_penalties(Candidates& c, std::span<const int32_t> recent, const PenaltyParams& p);

}  // namespace ck::sampling
