// Token sampling, as llama.cpp's sampler chain: logit bias, then the stages
// in order (by default penalties, DRY, top-k, typical-p, top-p, min-p, XTC,
// temperature), then a draw; or mirostat (1 or 2) in place of the stages. An
// optional constraint (a grammar) is checked on the drawn token, and only
// when it refuses it are all tokens filtered and the chain run again.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/sampling/candidates.h"
#include "runtime/sampling/dry.h"
#include "runtime/sampling/mirostat.h"
#include "runtime/sampling/penalties.h"

namespace ck {

// llama.cpp's names (--samplers): penalties dry top_k typ_p top_p min_p xtc temperature.
enum class SamplerStage { Penalties, Dry, TopK, TypicalP, TopP, MinP, Xtc, Temperature };

struct LogitBias {
  int32_t token;
  float bias;  // added to the logit; -inf bans the token
};

struct SamplerParams {
  float temp = 0.8f;               // 0 = greedy (the most likely token after bias, penalties, DRY, typical-p, XTC)
  int top_k = 40;                  // 0 = off
  float top_p = 0.95f;             // 1 = off
  float min_p = 0.05f;             // 0 = off
  float typical_p = 1.0f;          // 1 = off
  float repeat_penalty = 1.0f;     // 1 = off
  float frequency_penalty = 0.0f;  // 0 = off
  float presence_penalty = 0.0f;   // 0 = off
  int repeat_last_n = 64;          // window of the three penalties; 0 = off, -1 = all the text
  sampling::DryParams dry;         // multiplier 0 = off
  float xtc_probability = 0.0f;    // 0 = off
  float xtc_threshold = 0.1f;      // > 0.5 = off
  int mirostat = 0;                // 0 = off, 1 = mirostat, 2 = mirostat 2.0
  float mirostat_tau = 5.0f;       // target surprise (--mirostat-ent)
  float mirostat_eta = 0.1f;       // learning rate (--mirostat-lr)
  std::vector<LogitBias> logit_bias;
  std::vector<SamplerStage> order = default_order();
  uint64_t seed = 0;               // kRandomSeed = pick one at random (see Sampler::seed())

  static std::vector<SamplerStage> default_order();
};

// Parses llama.cpp's --samplers list ("top_k;temperature", also with the
// spellings top-k, typical_p, temp, ...) or its --sampling-seq letters
// ("kt": e d k y p m x t). Throws std::invalid_argument naming an unknown one.
std::vector<SamplerStage> parse_sampler_names(std::string_view names);
std::vector<SamplerStage> parse_sampler_letters(std::string_view letters);
std::string sampler_names(std::span<const SamplerStage> order);  // "penalties;dry;..."

// What restricts the tokens beyond the distribution: a grammar. The sampler
// does not own it.
class TokenConstraint {
 public:
  virtual ~TokenConstraint() = default;
  virtual bool allows(int32_t token) = 0;
  // Sets the logit of every candidate it does not allow to -inf.
  virtual void restrict(sampling::Candidates& c) = 0;
  virtual void accept(int32_t token) = 0;
  virtual void reset() = 0;
};

class Sampler {
 public:
  static constexpr uint64_t kRandomSeed = ~uint64_t{0};
  using TokenText = std::function<std::string(int32_t)>;
  // Throws std::runtime_error for out-of-range parameters, naming the one.
  // `token_text` finds DRY's sequence breakers among the tokens (without
  // it DRY has none).
  Sampler(const SamplerParams& params, int n_vocab, const TokenText& token_text = {});
  int32_t sample(std::span<const float> logits);
  // Records a generated token for the penalties and DRY, and moves the
  // constraint on by it.
  void accept(int32_t token);
  // Records prompt tokens for the penalties and DRY only (a grammar
  // constrains what is generated, as in llama.cpp).
  void accept_prompt(std::span<const int32_t> tokens);
  // Forgets the text, restarts the random stream from seed(), resets
  // mirostat and the constraint.
  void reset();
  uint64_t seed() const;  // the seed actually used
  void set_constraint(TokenConstraint* constraint) { constraint_ = constraint; }

  // The n most likely candidates of the distribution the last token was
  // drawn from, with their probabilities (greedy: the softmax of what the
  // stages left).
  std::vector<sampling::Candidate> last_distribution(size_t n);

 private:
  void start(std::span<const float> logits);
  int32_t run_chain();
  double draw();
  void remember(int32_t token);
  std::span<const int32_t> window(int n) const;

  SamplerParams params_;
  int n_vocab_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  std::vector<int32_t> recent_;  // the text, oldest first, trimmed to what the windows need
  size_t keep_recent_;           // the longest window (SIZE_MAX: all the text)
  std::optional<sampling::DryPenalty> dry_;
  sampling::MirostatV1 mirostat1_;
  sampling::MirostatV2 mirostat2_;
  TokenConstraint* constraint_ = nullptr;
  sampling::Candidates candidates_;
};

}  // namespace ck
