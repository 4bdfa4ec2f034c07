// Sampler: each filter against the distribution it should leave behind.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "runtime/sampler.h"

namespace {

ck::SamplerParams plain(float temp, uint64_t seed = 42) {
  ck::SamplerParams p;
  p.temp = temp;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.min_p = 0.0f;
  p.seed = seed;
  return p;
}

// Frequencies of each token over n draws.
std::vector<double> frequencies(ck::Sampler& s, const std::vector<float>& logits, int n) {
  std::vector<double> f(logits.size());
  for (int i = 0; i < n; ++i) f[s.sample(logits)] += 1.0 / n;
  return f;
}

std::vector<double> softmax_ref(const std::vector<float>& logits, double temp) {
  std::vector<double> p(logits.size());
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += p[i] = std::exp(logits[i] / temp);
  for (double& v : p) v /= sum;
  return p;
}

// probabilities 0.5, 0.3, 0.15, 0.05 at temperature 1
const std::vector<float> kLogits = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};

}  // namespace

TEST_CASE("temp 0 is argmax, lowest id on ties", "[sampler]") {
  ck::Sampler s(plain(0.0f), 5);
  REQUIRE(s.sample(std::vector<float>{0.1f, 3.0f, -2.0f, 2.9f, 0.0f}) == 1);
  REQUIRE(s.sample(std::vector<float>{1.0f, 3.0f, 3.0f, 0.0f, 3.0f}) == 1);
}

TEST_CASE("temperature sampling follows softmax(logits / temp)", "[sampler]") {
  for (float temp : {1.0f, 0.5f, 2.0f}) {
    ck::Sampler s(plain(temp), 4);
    const auto f = frequencies(s, kLogits, 20000);
    const auto p = softmax_ref(kLogits, temp);
    for (size_t i = 0; i < p.size(); ++i) REQUIRE(f[i] == Approx(p[i]).margin(0.02));
  }
}

TEST_CASE("top-k keeps the k most likely, renormalized", "[sampler]") {
  auto params = plain(1.0f);
  params.top_k = 2;
  ck::Sampler s(params, 4);
  const auto f = frequencies(s, kLogits, 20000);
  REQUIRE(f[2] == 0.0);
  REQUIRE(f[3] == 0.0);
  REQUIRE(f[0] == Approx(0.5 / 0.8).margin(0.02));
}

TEST_CASE("top-p keeps the smallest set reaching p", "[sampler]") {
  auto params = plain(1.0f);
  params.top_p = 0.7f;  // 0.5 < 0.7 <= 0.8: tokens 0 and 1
  ck::Sampler s(params, 4);
  const auto f = frequencies(s, kLogits, 20000);
  REQUIRE(f[1] == Approx(0.3 / 0.8).margin(0.02));
  REQUIRE(f[2] == 0.0);
  REQUIRE(f[3] == 0.0);
}

TEST_CASE("min-p drops tokens below min_p * p_max", "[sampler]") {
  auto params = plain(1.0f);
  params.min_p = 0.2f;  // threshold 0.1: tokens 0, 1, 2
  ck::Sampler s(params, 4);
  const auto f = frequencies(s, kLogits, 20000);
  REQUIRE(f[2] == Approx(0.15 / 0.95).margin(0.02));
  REQUIRE(f[3] == 0.0);
}

TEST_CASE("repetition penalty divides positive and multiplies negative logits of recent tokens", "[sampler]") {
  auto params = plain(0.0f);
  params.repeat_penalty = 1.5f;
  params.repeat_last_n = 1;
  ck::Sampler s(params, 2);
  s.accept(0);
  REQUIRE(s.sample(std::vector<float>{2.0f, 1.9f}) == 1);    // 2.0 / 1.5 < 1.9
  REQUIRE(s.sample(std::vector<float>{-1.0f, -1.2f}) == 1);  // -1.0 * 1.5 < -1.2
  s.accept(1);                                               // window of 1: token 0 is forgotten
  REQUIRE(s.sample(std::vector<float>{2.0f, 1.9f}) == 0);
}

TEST_CASE("the same seed gives the same draws, and reset restarts them", "[sampler]") {
  std::vector<float> logits(100);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(float(i));
  ck::Sampler a(plain(1.0f, 7), 100), b(plain(1.0f, 7), 100), c(plain(1.0f, 8), 100);
  std::vector<int32_t> da, db, dc;
  for (int i = 0; i < 50; ++i) {
    da.push_back(a.sample(logits));
    db.push_back(b.sample(logits));
    dc.push_back(c.sample(logits));
  }
  REQUIRE(da == db);
  REQUIRE(da != dc);
  a.reset();
  for (int i = 0; i < 50; ++i) REQUIRE(a.sample(logits) == da[i]);
}

TEST_CASE("a random seed is reported and reproduces the run", "[sampler]") {
  ck::Sampler r(plain(1.0f, ck::Sampler::kRandomSeed), 4);
  REQUIRE(r.seed() != ck::Sampler::kRandomSeed);
  ck::Sampler again(plain(1.0f, r.seed()), 4);
  for (int i = 0; i < 20; ++i) REQUIRE(r.sample(kLogits) == again.sample(kLogits));
}

TEST_CASE("bad sampler parameters are refused by name", "[sampler]") {
  auto p = plain(1.0f);
  p.top_p = 0.0f;
  REQUIRE_THROWS_WITH(ck::Sampler(p, 4), Catch::Contains("top-p"));
  p = plain(-1.0f);
  REQUIRE_THROWS_WITH(ck::Sampler(p, 4), Catch::Contains("temperature"));
  p = plain(1.0f);
  p.top_k = -1;
  REQUIRE_THROWS_WITH(ck::Sampler(p, 4), Catch::Contains("top-k"));
  ck::Sampler s(plain(1.0f), 4);
  REQUIRE_THROWS_WITH(s.sample(std::vector<float>(3)), Catch::Contains("3 logits"));
}
