// The sampler stages added for issue 13, each on a fixed logit vector with
// the result worked out by hand from the stage's definition (the numbers in
// the comments), not taken from the code's output.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "runtime/sampler.h"
#include "runtime/sampling/dry.h"
#include "runtime/sampling/mirostat.h"
#include "runtime/sampling/penalties.h"
#include "runtime/sampling/truncation.h"

namespace {

using ck::sampling::Candidates;

// probabilities 0.5, 0.3, 0.15, 0.05 at temperature 1
const std::vector<float> kLogits = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};

Candidates of(const std::vector<float>& logits) {
  Candidates c;
  c.assign(logits);
  return c;
}

std::vector<int32_t> ids(const Candidates& c) {
  std::vector<int32_t> out;
  for (const auto& x : c.items()) out.push_back(x.id);
  return out;
}

ck::SamplerParams greedy() {
  ck::SamplerParams p;
  p.temp = 0.0f;
  p.seed = 1;
  return p;
}

}  // namespace

TEST_CASE("repetition, frequency and presence penalties", "[sampler][issue13]") {
  Candidates c = of({2.0f, -1.0f, 0.5f, 1.0f});
  const std::vector<int32_t> recent = {0, 0, 1};
  ck::sampling::apply_penalties(c, recent, {.repeat = 2.0f, .frequency = 0.5f, .presence = 0.25f});
  CHECK(c[0].logit == Approx(2.0 / 2 - 2 * 0.5 - 0.25));   // seen twice: -0.25
  CHECK(c[1].logit == Approx(-1.0 * 2 - 1 * 0.5 - 0.25));  // negative: multiplied, -2.75
  CHECK(c[2].logit == 0.5f);                               // not seen
  CHECK(c[3].logit == 1.0f);
  SECTION("through the sampler: the window is --repeat-last-n") {
    auto p = greedy();
    p.presence_penalty = 1.0f;
    p.repeat_last_n = 2;
    ck::Sampler s(p, 3);
    for (int32_t t : {0, 1, 2}) s.accept(t);  // token 0 has left the window
    CHECK(s.sample(std::vector<float>{1.5f, 1.8f, 1.9f}) == 0);  // 1.5 > 0.8, 0.9
  }
}

TEST_CASE("typical-p keeps the tokens whose surprise is closest to the entropy", "[sampler][issue13]") {
  // H = -sum p ln p = 1.1421; |-ln p - H| = 0.449, 0.062, 0.755, 1.854:
  // token 1 first, then 0, 2, 3.
  Candidates c = of(kLogits);
  ck::sampling::typical_p(c, 0.5f);  // 0.3 <= 0.5 < 0.3 + 0.5
  CHECK(ids(c) == std::vector<int32_t>{1, 0});
  c = of(kLogits);
  ck::sampling::typical_p(c, 0.2f);  // 0.3 > 0.2: token 1 alone, the most likely is gone
  CHECK(ids(c) == std::vector<int32_t>{1});
  auto p = greedy();
  p.typical_p = 0.2f;
  CHECK(ck::Sampler(p, 4).sample(kLogits) == 1);
}

TEST_CASE("XTC drops the likely tokens but the least likely of them", "[sampler][issue13]") {
  Candidates c = of(kLogits);
  ck::sampling::xtc(c, 1.0f, 0.1f, 0.5f);  // 0.5, 0.3, 0.15 >= 0.1: 0 and 1 go
  CHECK(ids(c) == std::vector<int32_t>{2, 3});
  c = of(kLogits);
  ck::sampling::xtc(c, 1.0f, 0.2f, 0.5f);  // 0.5, 0.3 >= 0.2: 0 goes
  CHECK(ids(c) == std::vector<int32_t>{1, 2, 3});
  c = of(kLogits);
  ck::sampling::xtc(c, 1.0f, 0.4f, 0.5f);  // only 0.5 >= 0.4: nothing to exclude
  CHECK(c.size() == 4);
  c = of(kLogits);
  ck::sampling::xtc(c, 0.3f, 0.1f, 0.5f);  // the draw 0.5 is not below the probability 0.3
  CHECK(c.size() == 4);
  auto p = greedy();
  p.xtc_probability = 1.0f;
  p.xtc_threshold = 0.1f;
  CHECK(ck::Sampler(p, 4).sample(kLogits) == 2);
}

TEST_CASE("mirostat 2.0 truncates at mu and moves mu toward tau", "[sampler][issue13]") {
  // tau 1: mu starts at 2 bits. Surprises -log2 p: 1, 1.74, 2.74, 4.32 bits:
  // tokens 0 and 1 stay, renormalized to 0.625 and 0.375.
  ck::sampling::MirostatV2 m(1.0f, 0.1f);
  Candidates c = of(kLogits);
  CHECK(m.sample(c, 0.1) == 0);
  CHECK(c.size() == 2);
  CHECK(c[0].p == Approx(0.625));
  CHECK(m.mu() == Approx(2.0 - 0.1 * (-std::log2(0.625) - 1.0)));  // 2.0322
  c = of(kLogits);
  CHECK(m.sample(c, 0.9) == 1);  // 0.9 >= 0.625
  CHECK(m.mu() == Approx(2.0322 - 0.1 * (-std::log2(0.375) - 1.0)).epsilon(1e-4));  // 1.9907
}

TEST_CASE("mirostat 1.0 keeps the k tokens of its Zipf estimate and moves mu toward tau", "[sampler][issue13]") {
  // The fit over the pairs (0.5, 0.3), (0.3, 0.15), (0.15, 0.05):
  // t = ln 2, ln 1.5, ln 4/3; b = ln 5/3, ln 2, ln 3;
  // s = sum(t b) / sum(t t) = 0.95118 / 0.72762 = 1.30725, e = 0.30725.
  Candidates c = of(kLogits);
  c.softmax();
  // mu 2, N 4: (e 4 / (1 - 4^-e))^(1/s) = (1.2290 / 0.34684)^0.76496 = 2.6320.
  CHECK(ck::sampling::MirostatV1::zipf_k(c, 100, 2.0, 4) == Approx(2.6320).epsilon(1e-4));
  // m 2 fits the first pair alone: s = ln(5/3) / ln 2 = 0.73697, e = -0.26303;
  // (e 4 / (1 - 4^0.26303))^(1/s) = (-1.0521 / -0.43999)^1.35691 = 3.2640.
  CHECK(ck::sampling::MirostatV1::zipf_k(c, 2, 2.0, 4) == Approx(3.2640).epsilon(1e-4));

  SECTION("tau 1 over 32000 tokens: k 1.209, only the most likely is left; mu rises by eta * tau") {
    ck::sampling::MirostatV1 m(1.0f, 0.1f, 32000);
    c = of(kLogits);
    CHECK(m.sample(c, 0.9) == 0);
    CHECK(c.size() == 1);
    CHECK(m.mu() == Approx(2.0 - 0.1 * (0.0 - 1.0)));  // surprise 0: mu 2.1
  }
  SECTION("tau 3 over 32000 tokens: mu 6, k 10.08 keeps all four; the draw 0.9 lands on token 2") {
    ck::sampling::MirostatV1 m(3.0f, 0.1f, 32000);
    c = of(kLogits);
    CHECK(m.sample(c, 0.9) == 2);  // cumulative 0.5, 0.8, 0.95
    CHECK(c.size() == 4);
    CHECK(m.mu() == Approx(6.0 - 0.1 * (-std::log2(0.15) - 3.0)));  // 6.0263
  }
  SECTION("tau 1 over 4 tokens: k 2.63 keeps two, renormalized to 0.625 and 0.375") {
    ck::sampling::MirostatV1 m(1.0f, 0.1f, 4);
    c = of(kLogits);
    CHECK(m.sample(c, 0.7) == 1);
    REQUIRE(c.size() == 2);
    CHECK(c[1].p == Approx(0.375));
    m.reset();
    CHECK(m.mu() == 2.0f);
  }
  SECTION("the sampler runs it after temperature, with the whole vocabulary's size") {
    auto p = greedy();
    p.temp = 1.0f;
    p.mirostat = 1;
    p.mirostat_tau = 1.0f;
    std::vector<float> logits = kLogits;
    logits.resize(32000, -1e30f);  // probability 0: ratios the fit cannot use
    ck::Sampler s(p, 32000);
    for (int i = 0; i < 20; ++i) CHECK(s.sample(logits) == 0);  // k 1 whatever the draw
  }
}

TEST_CASE("DRY penalizes the token that would repeat a sequence", "[sampler][issue13]") {
  // The text ends in 1 2 3, which came before, followed by 4: a repetition
  // of length 3, so 4 loses 0.8 * 1.75^(3 - 2) = 1.4.
  const std::vector<int32_t> text = {1, 2, 3, 4, 1, 2, 3};
  auto no_breakers = [](int32_t) { return std::string("a"); };
  ck::sampling::DryParams p{.multiplier = 0.8f, .base = 1.75f, .allowed_length = 2, .penalty_last_n = -1};
  auto penalized = [&](const std::function<std::string(int32_t)>& token_text) {
    Candidates c = of(std::vector<float>(6, 0.0f));
    ck::sampling::DryPenalty(p, 6, token_text).apply(c, text);
    return c;
  };
  SECTION("length 3 over an allowed 2: multiplier * base^1") {
    const Candidates c = penalized(no_breakers);
    CHECK(c[4].logit == Approx(-1.4));
    for (size_t i : {0, 1, 2, 3, 5}) CHECK(c[i].logit == 0.0f);
  }
  SECTION("allowed length 3: base^0, the multiplier alone") {
    p.allowed_length = 3;
    CHECK(penalized(no_breakers)[4].logit == Approx(-0.8));
  }
  SECTION("a sequence breaker in between ends the repetition") {
    // only "3" follows the breaker 2: 1 < allowed length 2
    CHECK(penalized([](int32_t id) { return std::string(id == 2 ? ":" : "a"); })[4].logit == 0.0f);
  }
  SECTION("the window: the last 5 tokens hold no earlier 1 2 3") {
    p.penalty_last_n = 5;
    CHECK(penalized(no_breakers)[4].logit == 0.0f);
  }
}

TEST_CASE("logit bias: added before everything, -inf bans a token", "[sampler][issue13]") {
  auto p = greedy();
  p.logit_bias = {{2, -INFINITY}};
  CHECK(ck::Sampler(p, 3).sample(std::vector<float>{1.0f, 2.0f, 3.0f}) == 1);
  p.logit_bias = {{0, 5.0f}};
  CHECK(ck::Sampler(p, 3).sample(std::vector<float>{1.0f, 2.0f, 3.0f}) == 0);
  p.logit_bias = {{3, 1.0f}};
  CHECK_THROWS_WITH(ck::Sampler(p, 3), Catch::Contains("token 3 is not in the vocabulary"));
}

TEST_CASE("the stage order: llama.cpp's names and letters", "[sampler][issue13]") {
  using S = ck::SamplerStage;
  CHECK(ck::parse_sampler_names("top_k;temp;typical") == std::vector<S>{S::TopK, S::Temperature, S::TypicalP});
  CHECK(ck::parse_sampler_letters("edkypmxt") == ck::SamplerParams::default_order());
  CHECK(ck::sampler_names(ck::SamplerParams::default_order()) ==
        "penalties;dry;top_k;typ_p;top_p;min_p;xtc;temperature");
  CHECK_THROWS_WITH(ck::parse_sampler_names("top_k;magic"), Catch::Contains("unknown sampler 'magic'"));
  CHECK_THROWS_WITH(ck::parse_sampler_letters("kq"), Catch::Contains("'q'"));
  SECTION("the order changes the result: XTC before or after top-k 1") {
    auto p = greedy();
    p.temp = 1.0f;
    p.top_k = 1;
    p.top_p = 1.0f;
    p.min_p = 0.0f;
    p.xtc_probability = 1.0f;
    p.order = {S::TopK, S::Xtc};  // one token left: XTC has nothing to exclude
    CHECK(ck::Sampler(p, 4).sample(kLogits) == 0);
    p.order = {S::Xtc, S::TopK};  // 0 and 1 excluded first, then the best of the rest
    CHECK(ck::Sampler(p, 4).sample(kLogits) == 2);
  }
}

namespace {

// Allows the even tokens only; counts how often the sampler asks.
class EvenTokens : public ck::TokenConstraint {
 public:
  bool allows(int32_t t) override {
    ++checks;
    return t % 2 == 0;
  }
  void restrict(ck::sampling::Candidates& c) override {
    ++filters;
    for (auto& x : c.items()) {
      if (x.id % 2 != 0) x.logit = -INFINITY;
    }
  }
  void accept(int32_t t) override { accepted.push_back(t); }
  void reset() override { accepted.clear(); }
  int checks = 0, filters = 0;
  std::vector<int32_t> accepted;
};

}  // namespace

TEST_CASE("a constraint is checked on the drawn token and filters only when it refuses it", "[sampler][issue13]") {
  EvenTokens even;
  ck::Sampler s(greedy(), 4);
  s.set_constraint(&even);
  CHECK(s.sample(std::vector<float>{3.0f, 1.0f, 2.0f, 0.0f}) == 0);  // allowed: no filtering
  CHECK(even.filters == 0);
  CHECK(s.sample(std::vector<float>{0.0f, 5.0f, 1.0f, 0.0f}) == 2);  // 1 refused, then the best even one
  CHECK(even.filters == 1);
  s.accept(2);
  CHECK(even.accepted == std::vector<int32_t>{2});
}

TEST_CASE("the distribution the token was drawn from, for --n-probs", "[sampler][issue13]") {
  auto p = greedy();
  p.temp = 1.0f;
  p.top_k = 2;
  p.top_p = 1.0f;
  p.min_p = 0.0f;
  ck::Sampler s(p, 4);
  s.sample(kLogits);
  const auto top = s.last_distribution(5);  // top-k 2 left two
  REQUIRE(top.size() == 2);
  CHECK(top[0].id == 0);
  CHECK(top[0].p == Approx(0.5 / 0.8));
  CHECK(top[1].p == Approx(0.3 / 0.8));
}

TEST_CASE("new sampler parameters out of range are refused by name", "[sampler][issue13]") {
  auto p = greedy();
  p.mirostat = 3;
  CHECK_THROWS_WITH(ck::Sampler(p, 4), Catch::Contains("mirostat must be 0 (off), 1 or 2, got 3"));
  p = greedy();
  p.typical_p = 0.0f;
  CHECK_THROWS_WITH(ck::Sampler(p, 4), Catch::Contains("typical-p"));
  p = greedy();
  p.xtc_probability = 2.0f;
  CHECK_THROWS_WITH(ck::Sampler(p, 4), Catch::Contains("XTC probability"));
  p = greedy();
  p.dry.multiplier = -1.0f;
  CHECK_THROWS_WITH(ck::Sampler(p, 4), Catch::Contains("DRY multiplier"));
}
