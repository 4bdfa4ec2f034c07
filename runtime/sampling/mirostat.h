// Mirostat 2.0 (Basu et al. 2020), with llama.cpp's meaning: keeps the
// surprise (-log2 p) of the drawn tokens near a target tau by truncating
// every distribution at a running bound mu, learned at rate eta.
#pragma once
#include "runtime/sampling/candidates.h"

namespace ck::sampling {

class MirostatV2 {
 public:
  MirostatV2(float tau, float eta) : tau_(tau), eta_(eta), mu_(2.0f * tau) {}
  // Drops the candidates more surprising than mu (keeping at least the most
  // likely), renormalizes, and picks the one `draw` (uniform in [0, 1))
  // lands on; then moves mu toward tau by that token's surprise.
  int32_t sample(Candidates& c, double draw);
  void reset() { mu_ = 2.0f * tau_; }
  float mu() const { return mu_; }

 private:
  float tau_, eta_, mu_;
};

}  // namespace ck::sampling
