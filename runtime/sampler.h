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
  uint64_t seed = 0;           // kRandomSeed = pick one at random (see Sampler::seed())
};

class Sampler {
 public:
  static constexpr uint64_t kRandomSeed = ~uint64_t{0};
  // Throws std::runtime_error for out-of-range parameters, naming the one.
  Sampler(const SamplerParams& params, int n_vocab);
  // Order as llama.cpp's default chain: repetition penalty, top-k, top-p,
  // min-p, temperature, draw. temp 0 = argmax after the penalty (ties: lowest id).
  int32_t sample(std::span<const float> logits);
  void accept(int32_t token);  // record for the repetition penalty
  void reset();  // forget recent tokens and restart the random stream from seed()
  uint64_t seed() const;       // the seed actually used

 private:
  SamplerParams params_;
  int n_vocab_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  std::deque<int32_t> recent_;
  std::vector<std::pair<float, int32_t>> candidates_;  // (logit, id) scratch, n_vocab reserved
  std::vector<float> probs_;                           // scratch for the survivors' probabilities
};

}  // namespace ck
