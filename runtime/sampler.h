// Token sampling: greedy, temperature, top-k, top-p, min-p, repetition penalty.
#pragma once
#include <cstdint>
#include <deque>
#include <random>
#include <span>
#include <vector>

namespace ck {

struct SamplerParams {
  float temp = 0.8f;           // 0 = greedy
  int top_k = 40;              // 0 = off
  float top_p = 0.95f;         // 1 = off
  float min_p = 0.05f;         // 0 = off
  float repeat_penalty = 1.0f; // 1 = off
  int repeat_last_n = 64;      // window for the penalty
  uint64_t seed = 0;           // 0xFFFFFFFF... = random (see Sampler::seed())
};

class Sampler {
 public:
  static constexpr uint64_t kRandomSeed = ~uint64_t{0};
  Sampler(const SamplerParams& params, int n_vocab);
  int32_t sample(std::span<const float> logits);
  void accept(int32_t token);  // record for the repetition penalty
  void reset();
  uint64_t seed() const;       // the seed actually used

 private:
  SamplerParams params_;
  int n_vocab_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  std::deque<int32_t> recent_;
  std::vector<std::pair<float, int32_t>> candidates_;
};

}  // namespace ck
