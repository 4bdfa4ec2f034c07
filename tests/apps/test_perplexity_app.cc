// ck-perplexity end to end on stories260K, against llama.cpp's llama-perplexity
// output for the same model, file and settings.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

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

TEST_CASE("ck-perplexity: -b and -t change the speed, not the result", "[perplexity][app]") {
  const auto a = run_app({"ck-perplexity", "-m", kModel, "-f", kWiki, "-c", "128", "--chunks", "3", "-t", "1"});
  const auto b = run_app({"ck-perplexity", "-m", kModel, "-f", kWiki, "-c", "128", "--chunks", "3", "-b", "7", "-t", "2"});
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK(final_ppl(b.out) == Approx(final_ppl(a.out)).epsilon(1e-5));
}

TEST_CASE("ck-perplexity: a model compared with itself has no divergence", "[perplexity][kld][app]") {
  const auto base = ck::test::temp_path("ck_test_self.kld");
  const auto w = run_app({"ck-perplexity", "-m", kModel, "-f", kWiki, "-c", "128", "--chunks", "4",
                          "--kl-divergence-base", base});
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
    CHECK(r.err.find("not a ck-perplexity KL-divergence base file") != std::string::npos);
  }
}
