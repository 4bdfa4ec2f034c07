// ck's f16 KV cache (the default, -ctk/-ctv f16) against its f32 cache, on
// stories260K and SmolLM2, bounded by what the same change does to
// llama.cpp's logits on the same tokens (scripts/oracle/make_kv_goldens.py).
// Why that bound holds: both tools round every key and value to the nearest
// half (relative error at most 2^-11, ties to even); llama.cpp's attention
// (flash attention off, as in the goldens) also rounds the queries to halves
// for the key products and the softmax weights to halves for the value
// products, which ck keeps in floats. ck's change is a subset of llama.cpp's,
// so its largest logit difference should not exceed llama.cpp's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/runtime/golden.h"

namespace {

constexpr ck::KvCacheTypes kF32{.key_f16 = false, .value_f16 = false};
constexpr ck::KvCacheTypes kF16{.key_f16 = true, .value_f16 = true};

struct KvGolden {
  std::filesystem::path model;
  std::vector<int32_t> prompt, greedy;  // llama.cpp's greedy continuation with an F32 cache
  int n_ctx = 0;
  float llama_max_diff = 0;             // llama.cpp: max |F16 cache - F32 cache| over all logits
  double llama_rms_diff = 0;            // and its root mean square
  bool llama_greedy_same = false;       // llama.cpp's own greedy run with an F16 cache gives `greedy`
};

KvGolden load_kv_golden(const std::string& name) {
  std::ifstream in(std::filesystem::path(CK_GOLDEN_DIR) / "oracle" / ("kv_f16_" + name + ".json"));
  REQUIRE(in);
  const nlohmann::json j = nlohmann::json::parse(in);
  KvGolden g;
  g.model = j.at("model_dir") == "shared" ? ck::test::stories_gguf() : ck::test::smollm2_gguf();
  g.prompt = j.at("tokens").get<std::vector<int32_t>>();
  g.greedy = j.at("greedy").get<std::vector<int32_t>>();
  g.n_ctx = j.at("n_ctx");
  g.llama_max_diff = j.at("llama_f16_max_abs_diff");
  g.llama_rms_diff = j.at("llama_f16_rms_diff");
  g.llama_greedy_same = j.at("llama_f16_greedy_same");
  return g;
}

// The logits of every position of prompt + greedy, as llama.cpp ran them:
// the prompt as one batch, then one token at a time.
std::vector<float> logits_of(const ck::Model& model, const KvGolden& g, ck::KvCacheTypes kv) {
  ck::Session session(model, {.n_ctx = g.n_ctx, .kv_types = kv});
  std::vector<float> out;
  session.eval_all(g.prompt, out);
  for (const int32_t& t : g.greedy) {
    const auto logits = session.eval(std::span(&t, 1));
    out.insert(out.end(), logits.begin(), logits.end());
  }
  return out;
}

std::vector<int32_t> greedy_decode(const ck::Model& model, const KvGolden& g, ck::KvCacheTypes kv) {
  ck::Session session(model, {.n_ctx = g.n_ctx, .kv_types = kv});
  std::span<const float> logits = session.eval(g.prompt);
  std::vector<int32_t> out;
  while (out.size() < g.greedy.size()) {
    out.push_back(static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    logits = session.eval(std::span(&out.back(), 1));
  }
  return out;
}

// The typical move (root mean square over all logits) must be no larger
// than llama.cpp's. The largest single move too where the weights are F32
// (stories260K); with quantized weights the activations are rounded to int8
// at every matrix (as llama.cpp rounds them), so that a key moved by an f16
// rounding flips activation roundings downstream by whole steps, and the
// largest of 3.9M logit moves is one draw from that tail: on SmolLM2 ck's
// was 1.43 (AVX2) and 1.68 (AVX-512) against llama.cpp's 1.63, with RMS
// 0.218 and 0.230 against 0.243.
float check_within_llama_cpp(const ck::Model& model, const KvGolden& g, const std::string& name, bool check_max) {
  const std::vector<float> f32 = logits_of(model, g, kF32), f16 = logits_of(model, g, kF16);
  REQUIRE(f32.size() == f16.size());
  float diff = 0;
  double sq = 0;
  for (size_t i = 0; i < f32.size(); ++i) {
    diff = std::max(diff, std::fabs(f32[i] - f16[i]));
    sq += static_cast<double>(f32[i] - f16[i]) * (f32[i] - f16[i]);
  }
  const double rms = std::sqrt(sq / static_cast<double>(f32.size()));
  std::printf("%-12s f16 vs f32 KV cache over %zu positions: max |logit diff| ck %.4f, llama.cpp %.4f; rms ck %.4f, "
              "llama.cpp %.4f\n",
              name.c_str(), g.prompt.size() + g.greedy.size(), diff, g.llama_max_diff, rms, g.llama_rms_diff);
  CHECK(diff > 0);  // the halves are in use
  CHECK(rms <= g.llama_rms_diff);
  if (check_max) CHECK(diff <= g.llama_max_diff);
  return diff;
}

}  // namespace

TEST_CASE("stories260K: an f16 KV cache moves the logits no more than llama.cpp's, same greedy tokens",
          "[forward][kv-cache][oracle]") {
  const KvGolden g = load_kv_golden("stories260K");
  auto model = ck::Model::load(g.model);
  check_within_llama_cpp(*model, g, "stories260K", true);
  // llama.cpp keeps its 64 greedy tokens with an F16 cache; so must ck.
  REQUIRE(g.llama_greedy_same);
  const std::vector<int32_t> f32 = greedy_decode(*model, g, kF32);
  CHECK(f32 == g.greedy);
  CHECK(greedy_decode(*model, g, kF16) == f32);
}

// SmolLM2's greedy path has near ties (a top-2 margin of 0.28 at step 9,
// where llama.cpp's own F16 run takes the other token), so only the bound
// is checked.
TEST_CASE("SmolLM2: an f16 KV cache moves the logits no more than llama.cpp's", "[forward][kv-cache][oracle]") {
  const KvGolden g = load_kv_golden("smollm2");
  REQUIRE(ck::test::model_available(g.model));
  auto model = ck::Model::load(g.model);
  check_within_llama_cpp(*model, g, "SmolLM2", false);
}
