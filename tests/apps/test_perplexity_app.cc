// ck-perplexity end to end on stories260K, against llama.cpp's llama-perplexity
// output for the same model, file and settings.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "subprocess.h"

using ck::test::run_app;

namespace {

const std::string kModel = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
const std::string kWiki = std::string(CK_SHARED_DATA) + "/wikitext-2/wikitext-2-raw-v1.test.txt";

double final_ppl(const std::string& out) {
  std::smatch m;
  const std::regex re(R"(Final estimate: PPL = ([0-9.]+) \+/- ([0-9.]+))");
  REQUIRE(std::regex_search(out, m, re));
  return std::stod(m[1]);
}

}  // namespace

TEST_CASE("ck-perplexity matches llama-perplexity on stories260K", "[perplexity][app]") {
  // llama.cpp: llama-perplexity -m stories260K.gguf -f wiki.test.raw -c 256 --chunks 40
  //   -> Final estimate: PPL = 138.7948 +/- 7.92433
  const auto r = run_app({"ck-perplexity", "-m", kModel, "-f", kWiki, "-c", "256", "--chunks", "40", "-t", "1"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(final_ppl(r.out) == Approx(138.7948).epsilon(0.005));
  CHECK(r.out.find("[1]") == 0);
  CHECK(r.out.find("[40]") != std::string::npos);
  CHECK(r.out.find("[41]") == std::string::npos);
}

// With an f32 cache: with halves, keys that batches of 7 and of 128 compute
// 1e-6 apart may round to neighbouring halves, which moved the PPL by 1.3e-5
// (82.2251 vs 82.2262; docs/apps.md).
TEST_CASE("ck-perplexity: -b and -t change the speed, not the result", "[perplexity][app]") {
  const auto a = run_app({"ck-perplexity", "-m", kModel, "-f", kWiki, "-c", "128", "--chunks", "3", "-t", "1", "-ctk",
                          "f32", "-ctv", "f32"});
  const auto b = run_app({"ck-perplexity", "-m", kModel, "-f", kWiki, "-c", "128", "--chunks", "3", "-b", "7", "-t", "2",
                          "-ctk", "f32", "-ctv", "f32"});
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK(final_ppl(b.out) == Approx(final_ppl(a.out)).epsilon(1e-5));
}

TEST_CASE("ck-perplexity: a model compared with itself has no divergence", "[perplexity][kld][app]") {
  // Both files: llama.cpp's (the default) and ck's top-k.
  const std::string top_k = GENERATE(std::string(), std::string("32"));
  INFO("--kl-top-k " << top_k);
  const auto base = ck::test::temp_path("ck_test_self.kld");
  std::vector<std::string> args = {"ck-perplexity", "-m", kModel, "-f", kWiki, "-c", "128", "--chunks", "4",
                                   "--kl-divergence-base", base};
  if (!top_k.empty()) args.insert(args.end(), {"--kl-top-k", top_k});
  const auto w = run_app(args);
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  const auto r = run_app({"ck-perplexity", "-m", kModel, "--kl-divergence-base", base, "--kl-divergence"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(R"(Mean    KLD:\s+([-0-9.]+))")));
  CHECK(std::abs(std::stod(m[1])) < 1e-5);
  CHECK(r.out.find("Same top p: 100.000") != std::string::npos);
  // PPL(Q) of the comparison is the PPL the base run printed.
  REQUIRE(std::regex_search(r.out, m, std::regex(R"(Mean PPL\(Q\)\s+:\s+([0-9.]+))")));
  CHECK(std::stod(m[1]) == Approx(final_ppl(w.out)).epsilon(1e-4));
  std::filesystem::remove(base);
}

TEST_CASE("ck-perplexity: bad input is a clear error, exit 1", "[perplexity][app]") {
  SECTION("missing text file") {
    const auto r = run_app({"ck-perplexity", "-m", kModel, "-f", "/nonexistent/wiki.txt"});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("ck-perplexity: error: /nonexistent/wiki.txt: cannot open") != std::string::npos);
  }
  SECTION("text too short for the context") {
    const auto file = ck::test::temp_path("ck_test_short.txt");
    { std::ofstream(file) << "Once upon a time there was a cat."; }
    const auto r = run_app({"ck-perplexity", "-m", kModel, "-f", file, "-c", "256"});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("needs at least 512") != std::string::npos);
    std::filesystem::remove(file);
  }
  SECTION("--kl-divergence without a base file") {
    const auto r = run_app({"ck-perplexity", "-m", kModel, "--kl-divergence"});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("needs --kl-divergence-base") != std::string::npos);
  }
  SECTION("a base file that is not one") {
    const auto r = run_app({"ck-perplexity", "-m", kModel, "--kl-divergence", "--kl-divergence-base", kWiki});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("not a KL-divergence base file") != std::string::npos);
  }
}

// llama.cpp's own KL-divergence base file (scripts/make-kld-golden:
// llama-perplexity on stories260K F32, -c 64 --chunks 4, F32 KV cache, no
// flash attention) and what llama-perplexity --kl-divergence prints reading
// it with the same model and settings. With them llama.cpp's logits and ck's
// agree to ~1e-5 (llama.cpp's flash attention alone moves PPL by 0.07 %).
namespace {

const std::string kLlamaBase = std::string(CK_SOURCE_DIR) + "/tests/apps/golden/stories260K_llama.kld";

double stat(const std::string& out, const std::string& name) {
  std::smatch m;
  INFO("statistic " << name);
  REQUIRE(std::regex_search(out, m, std::regex(name + R"(\s*:\s+([-0-9.]+))")));
  return std::stod(m[1]);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("ck-perplexity reads llama-perplexity's KL-divergence base file as llama-perplexity does",
          "[perplexity][kld][app]") {
  const std::string llama = read_file(std::string(CK_SOURCE_DIR) + "/tests/apps/golden/stories260K_llama_kld.txt");
  // llama-perplexity wrote the golden with an F32 cache (scripts/make-kld-golden); so does ck here.
  const auto r = run_app({"ck-perplexity", "-m", kModel, "--kl-divergence-base", kLlamaBase, "--kl-divergence",
                          "-t", "1", "-ctk", "f32", "-ctv", "f32"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\n   4 ") != std::string::npos);
  CHECK(r.out.find("\n   5 ") == std::string::npos);
  // The reference's side comes from the file alone: the same digits.
  CHECK(stat(r.out, R"(Mean PPL\(base\))") == stat(llama, R"(Mean PPL\(base\))"));
  // ck's logits against llama.cpp's: PPL to 1e-6 (72.988994 / 72.989015 when
  // written), the KLD statistics (at the noise of the file's 16-bit
  // encoding: mean -0.000001, max 0.000039 / 0.000040) to their last digits.
  CHECK(stat(r.out, R"(Mean PPL\(Q\))") == Approx(stat(llama, R"(Mean PPL\(Q\))")).epsilon(2e-6));
  CHECK(stat(r.out, "Mean    KLD") == Approx(stat(llama, "Mean    KLD")).margin(1.5e-6));
  CHECK(stat(r.out, "Maximum KLD") == Approx(stat(llama, "Maximum KLD")).margin(3e-6));
  CHECK(stat(r.out, "Same top p") == stat(llama, "Same top p"));
}

TEST_CASE("ck-perplexity writes llama-perplexity's KL-divergence base file", "[perplexity][kld][app]") {
  const auto base = ck::test::temp_path("ck_test_llama_format.kld");
  // The golden's F32 cache (scripts/make-kld-golden).
  const auto w = run_app({"ck-perplexity", "-m", kModel, "-f", kWiki, "-c", "64", "--chunks", "4", "-t", "1",
                          "--kl-divergence-base", base, "-ctk", "f32", "-ctv", "f32"});
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  const std::string ours = read_file(base), theirs = read_file(kLlamaBase);
  std::filesystem::remove(base);
  REQUIRE(ours.size() == theirs.size());
  // Magic, n_ctx, n_vocab, n_chunk and the 256 tokens: the same bytes.
  const size_t head = 8 + 12 + 256 * 4;
  CHECK(ours.compare(0, head, theirs, 0, head) == 0);
  // Every row: the same log-probabilities to one step of the encoding (16 /
  // 65535 here): the logits agree to far less than a step, so rounding moves
  // a value by one step at most.
  const size_t nv = 512 + 4, rows = (ours.size() - head) / (2 * nv);
  REQUIRE(rows == 4 * 31);
  double worst = 0;
  for (size_t r = 0; r < rows; ++r) {
    const char* a = ours.data() + head + r * 2 * nv;
    const char* b = theirs.data() + head + r * 2 * nv;
    float sa, ma, sb, mb;
    std::memcpy(&sa, a, 4);
    std::memcpy(&ma, a + 4, 4);
    std::memcpy(&sb, b, 4);
    std::memcpy(&mb, b + 4, 4);
    for (size_t i = 0; i < 512; ++i) {
      uint16_t qa, qb;
      std::memcpy(&qa, a + 8 + 2 * i, 2);
      std::memcpy(&qb, b + 8 + 2 * i, 2);
      worst = std::max(worst, static_cast<double>(std::abs((sa * qa + ma) - (sb * qb + mb))));
    }
  }
  CHECK(worst < 1.5 * 16.0 / 65535);
}
