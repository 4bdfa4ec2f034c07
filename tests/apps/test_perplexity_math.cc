// The perplexity arithmetic against values derived by hand, and the reference
// file against its own reader and against damaged copies.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "apps/perplexity/chunks.h"
#include "apps/perplexity/kld_file.h"
#include "apps/perplexity/kld_stats.h"
#include "apps/perplexity/llama_kld_file.h"
#include "apps/perplexity/nll.h"
#include "subprocess.h"

using namespace ck::app;

TEST_CASE("token_nll is -log softmax", "[perplexity]") {
  // softmax(log 1, log 2, log 3) = (1/6, 2/6, 3/6)
  const std::vector<float> logits = {std::log(1.0f), std::log(2.0f), std::log(3.0f)};
  CHECK(token_nll(logits, 1) == Approx(std::log(3.0)).epsilon(1e-6));
  CHECK(token_nll(logits, 2) == Approx(std::log(2.0)).epsilon(1e-6));
  // A constant shift of all logits changes nothing, even a large one.
  const std::vector<float> shifted = {logits[0] + 1000.0f, logits[1] + 1000.0f, logits[2] + 1000.0f};
  CHECK(token_nll(shifted, 1) == Approx(std::log(3.0)).epsilon(1e-4));
  CHECK_THROWS(token_nll(logits, 3));
  CHECK_THROWS(token_nll(logits, -1));
}

TEST_CASE("NllStats: PPL and its standard error by error propagation", "[perplexity]") {
  NllStats s;
  for (double x : {1.0, 2.0, 3.0, 4.0}) s.add(x);
  // mean 2.5, E[x^2] 7.5, variance 1.25, standard error sqrt(1.25 / 3)
  CHECK(s.mean() == Approx(2.5));
  CHECK(s.mean_error() == Approx(std::sqrt(1.25 / 3)));
  CHECK(s.ppl() == Approx(std::exp(2.5)));
  CHECK(s.ppl_error() == Approx(std::exp(2.5) * std::sqrt(1.25 / 3)));
}

TEST_CASE("plan_chunks follows llama-perplexity", "[perplexity]") {
  const ChunkPlan p = plan_chunks(1000, 256, -1);
  CHECK(p.n_chunk == 3);  // the 232 tokens that do not fill a chunk are dropped
  CHECK(p.first == 128);
  CHECK(p.n_scored() == 127);
  CHECK(plan_chunks(1000, 256, 2).n_chunk == 2);
  CHECK(plan_chunks(1000, 256, 99).n_chunk == 3);
  CHECK_THROWS_WITH(plan_chunks(511, 256, -1), Catch::Contains("needs at least 512"));
}

TEST_CASE("chunk_input replaces the first token by BOS only when asked", "[perplexity]") {
  std::vector<int32_t> tokens(32);
  std::iota(tokens.begin(), tokens.end(), 100);
  const ChunkPlan p = plan_chunks(tokens.size(), 8, -1);
  CHECK(chunk_input(tokens, p, 1, 1) == std::vector<int32_t>{1, 109, 110, 111, 112, 113, 114, 115});
  CHECK(chunk_input(tokens, p, 3, -1) == std::vector<int32_t>{124, 125, 126, 127, 128, 129, 130, 131});
}

namespace {

// Exact KL(p || q) of two logit vectors, in double.
double exact_kl(const std::vector<float>& base, const std::vector<float>& model) {
  auto probs = [](const std::vector<float>& l) {
    std::vector<double> p(l.size());
    double z = 0;
    for (size_t i = 0; i < l.size(); ++i) z += p[i] = std::exp(double(l[i]));
    for (double& v : p) v /= z;
    return p;
  };
  const auto p = probs(base), q = probs(model);
  double kl = 0;
  for (size_t i = 0; i < p.size(); ++i) kl += p[i] * std::log(p[i] / q[i]);
  return kl;
}

std::vector<float> pseudo_logits(int n, unsigned seed) {
  std::vector<float> l(n);
  for (int i = 0; i < n; ++i) l[i] = static_cast<float>(std::sin(seed * 12.9898 + i * 78.233) * 4.0);
  return l;
}

}  // namespace

TEST_CASE("compare_position: exact with the full vocabulary, a lower bound with top-k", "[perplexity][kld]") {
  const auto base = pseudo_logits(64, 1), model = pseudo_logits(64, 2);
  const double exact = exact_kl(base, model);
  REQUIRE(exact > 0.1);

  const PositionKld full = compare_position(model, summarize_logits(base, 5, 64), 5);
  CHECK(full.kld == Approx(exact).epsilon(1e-5));
  CHECK(full.nll == Approx(token_nll(model, 5)).epsilon(1e-6));
  CHECK(full.nll_base == Approx(token_nll(base, 5)).epsilon(1e-6));
  CHECK(full.same_top == (argmax(base) == argmax(model)));

  const PositionKld top8 = compare_position(model, summarize_logits(base, 5, 8), 5);
  CHECK(top8.kld <= exact + 1e-6);
  CHECK(top8.kld >= 0);
  CHECK(top8.nll_base == Approx(full.nll_base));

  const PositionKld self = compare_position(base, summarize_logits(base, 5, 8), 5);
  CHECK(self.kld == Approx(0).margin(1e-6));
  CHECK(self.same_top);
}

// llama.cpp's file keeps log p to within half a step of (max - min) / 65535
// with max - min <= 16, so every log-probability is off by at most 1.3e-4
// (plus float rounding) and the KL divergence, NLL and Δp as much; tokens
// more than 16 below the top (p < 1.2e-7 of the top's) leave the KL sum.
TEST_CASE("llama.cpp's encoded rows: KL divergence, NLL and top token as llama-perplexity computes them",
          "[perplexity][kld]") {
  const auto base = pseudo_logits(64, 1), model = pseudo_logits(64, 2);
  const double exact = exact_kl(base, model);
  const std::vector<uint16_t> row = encode_llama_row(base);
  REQUIRE(row.size() == 2 * 32 + 4);
  const PositionKld r = compare_llama_row(model, row, 5);
  CHECK(r.kld == Approx(exact).margin(2e-4));
  CHECK(r.nll == Approx(token_nll(model, 5)).epsilon(1e-6));
  CHECK(r.nll_base == Approx(token_nll(base, 5)).margin(2e-4));
  CHECK(r.p_diff == Approx(std::exp(-token_nll(model, 5)) - std::exp(-token_nll(base, 5))).margin(2e-4));
  CHECK(r.same_top == (argmax(base) == argmax(model)));
  const PositionKld self = compare_llama_row(base, row, 5);
  CHECK(self.kld == Approx(0).margin(2e-4));
  CHECK(self.same_top);

  SECTION("the largest logit is q = 65535, those 16 or more below it q = 0") {
    std::vector<float> wide = pseudo_logits(63, 3);  // odd: one padding value
    wide[7] = 30.0f;
    wide[9] = 30.0f - 16.0f;
    wide[11] = -50.0f;
    const std::vector<uint16_t> w = encode_llama_row(wide);
    REQUIRE(w.size() == 2 * 32 + 4);
    CHECK(w[4 + 7] == 65535);
    CHECK(w[4 + 9] == 0);
    CHECK(w[4 + 11] == 0);
    CHECK(w.back() == 0);
    float scale, min_log_prob;
    std::memcpy(&scale, w.data(), 4);
    std::memcpy(&min_log_prob, w.data() + 2, 4);
    CHECK(scale == Approx(16.0 / 65535));
    CHECK(scale * 65535 + min_log_prob == Approx(-token_nll(wide, 7)).margin(1e-5));
  }
  SECTION("all logits equal: scale 0, every token at log(1/n)") {
    const std::vector<float> flat(10, 2.5f);
    const std::vector<uint16_t> f = encode_llama_row(flat);
    const PositionKld p = compare_llama_row(flat, f, 3);
    CHECK(p.nll_base == Approx(std::log(10.0)).epsilon(1e-6));
    CHECK(p.kld == Approx(0).margin(1e-6));
  }
  CHECK_THROWS(compare_llama_row(model, row, 64));
  CHECK_THROWS(compare_llama_row(std::vector<float>(65, 0.0f), row, 1));
}

TEST_CASE("llama.cpp's base file: round trip and damaged files", "[perplexity][kld]") {
  const auto dir = std::filesystem::path(ck::test::temp_path("ck_test_llama_kld"));
  std::filesystem::create_directories(dir);
  const auto path = dir / "base.kld";
  const KldHeader h{8, 63, 2, 0};  // 3 scored rows per chunk, an odd vocabulary
  std::vector<int32_t> tokens(16);
  std::iota(tokens.begin(), tokens.end(), 3);
  {
    LlamaKldWriter w(path, h, tokens);
    for (int i = 0; i < 6; ++i) w.add(pseudo_logits(63, i));
    w.close();
  }
  CHECK(is_llama_kld_file(path));
  // magic, n_ctx, n_vocab, n_chunk, the tokens, 6 rows of 2 * 32 + 4 uint16.
  CHECK(std::filesystem::file_size(path) == 8 + 12 + 16 * 4 + 6 * 68 * 2);
  {
    LlamaKldReader r(path);
    CHECK(r.header().n_ctx == 8);
    CHECK(r.header().n_vocab == 63);
    CHECK(r.header().n_chunk == 2);
    CHECK(r.tokens() == tokens);
    for (int i = 0; i < 6; ++i) {
      const std::span<const uint16_t> row = r.next();
      const std::vector<uint16_t> want = encode_llama_row(pseudo_logits(63, i));
      CHECK(std::vector<uint16_t>(row.begin(), row.end()) == want);
    }
  }
  SECTION("a writer that is not given every row refuses to close") {
    LlamaKldWriter w(dir / "short.kld", h, tokens);
    w.add(pseudo_logits(63, 0));
    CHECK_THROWS(w.close());
  }
  SECTION("truncated") {
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 2);
    CHECK_THROWS_WITH(LlamaKldReader(path), Catch::Contains("header says"));
  }
  SECTION("a token outside the vocabulary") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(20);
    const int32_t bad = 63;
    f.write(reinterpret_cast<const char*>(&bad), 4);
    f.close();
    CHECK_THROWS_WITH(LlamaKldReader(path), Catch::Contains("token id 63 outside the vocabulary"));
  }
  SECTION("a negative n_ctx") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    const int32_t bad = -8;
    f.write(reinterpret_cast<const char*>(&bad), 4);
    f.close();
    CHECK_THROWS_WITH(LlamaKldReader(path), Catch::Contains("bad header (n_ctx -8"));
  }
  SECTION("ck's top-k file is not llama.cpp's") {
    KldBaseWriter w(dir / "topk.kld", KldHeader{8, 63, 2, 4}, tokens);
    for (int i = 0; i < 6; ++i) w.add(summarize_logits(pseudo_logits(63, i), i, 4));
    w.close();
    CHECK_FALSE(is_llama_kld_file(dir / "topk.kld"));
    CHECK_THROWS_WITH(LlamaKldReader(dir / "topk.kld"), Catch::Contains("not a llama.cpp KL-divergence base file"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("summarize_logits keeps the most probable tokens in order", "[perplexity][kld]") {
  const std::vector<float> logits = {0.5f, 3.0f, -1.0f, 2.0f, 2.0f};
  const BaseRow r = summarize_logits(logits, 2, 3);
  CHECK(r.ids == std::vector<int32_t>{1, 3, 4});
  CHECK(r.logp[0] == Approx(-token_nll(logits, 1)));
  CHECK(r.logp_target == Approx(-token_nll(logits, 2)));
}

TEST_CASE("percentile interpolates between ranks", "[perplexity][kld]") {
  const std::vector<float> v = {1, 2, 3, 4, 5};
  CHECK(percentile(v, 0.5) == Approx(3));
  CHECK(percentile(v, 0.1) == Approx(1.4));
  CHECK(percentile(v, 0.0) == 1);
  CHECK(percentile(v, 1.0) == 5);
}

TEST_CASE("KLD base file: round trip and damaged files", "[perplexity][kld]") {
  const auto dir = std::filesystem::path(ck::test::temp_path("ck_test_kld"));
  std::filesystem::create_directories(dir);
  const auto path = dir / "base.kld";
  const KldHeader h{8, 64, 2, 4};  // 3 scored rows per chunk
  std::vector<int32_t> tokens(16);
  std::iota(tokens.begin(), tokens.end(), 3);
  {
    KldBaseWriter w(path, h, tokens);
    for (int i = 0; i < 6; ++i) w.add(summarize_logits(pseudo_logits(64, i), i, 4));
    w.close();
  }
  {
    KldBaseReader r(path);
    CHECK(r.header().n_ctx == 8);
    CHECK(r.header().top_k == 4);
    CHECK(r.tokens() == tokens);
    BaseRow row;
    for (int i = 0; i < 6; ++i) {
      r.next(row);
      const BaseRow want = summarize_logits(pseudo_logits(64, i), i, 4);
      CHECK(row.ids == want.ids);
      CHECK(row.logp == want.logp);
      CHECK(row.logp_target == want.logp_target);
    }
  }
  SECTION("a writer that is not given every row refuses to close") {
    KldBaseWriter w(dir / "short.kld", h, tokens);
    w.add(summarize_logits(pseudo_logits(64, 0), 0, 4));
    CHECK_THROWS(w.close());
  }
  SECTION("truncated") {
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 4);
    CHECK_THROWS_WITH(KldBaseReader(path), Catch::Contains("header says"));
  }
  SECTION("wrong magic") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.write("GGUF", 4);
    f.close();
    CHECK_THROWS_WITH(KldBaseReader(path), Catch::Contains("not a KL-divergence base file"));
  }
  SECTION("not there") { CHECK_THROWS_WITH(KldBaseReader(dir / "missing.kld"), Catch::Contains("cannot open")); }
  std::filesystem::remove_all(dir);
}
