// ck-bench: argument lists as llama-bench reads them, the statistics and
// output formats, and a short run on stories260K read back as JSON.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "apps/bench/params.h"
#include "apps/bench/printers.h"
#include "apps/bench/result.h"
#include "apps/bench/runner.h"
#include "app_test_support.h"
#include "subprocess.h"

using namespace ck::bench;

TEST_CASE("parse_int_list: lists and ranges as llama-bench", "[bench]") {
  CHECK(parse_int_list("1,2,4") == std::vector<int>{1, 2, 4});
  CHECK(parse_int_list("1-4") == std::vector<int>{1, 2, 3, 4});
  CHECK(parse_int_list("1-16*2") == std::vector<int>{1, 2, 4, 8, 16});
  CHECK(parse_int_list("128-512+128,7") == std::vector<int>{128, 256, 384, 512, 7});
  CHECK(parse_int_list("0") == std::vector<int>{0});
  for (const char* bad : {"", "a", "1,", "4-1", "1-4*1", "1-4+0", "-1", "1.5"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_int_list(bad), std::invalid_argument);
  }
  CHECK(parse_pg("512,128") == std::pair<int, int>{512, 128});
  CHECK_THROWS(parse_pg("512"));
  CHECK_THROWS(parse_output_format("xml"));
}

TEST_CASE("expand_tests: pp, tg, pg at every depth, zeros skipped, llama-bench names", "[bench]") {
  const auto tests = expand_tests({512, 0}, {128}, {{64, 16}}, {0, 1024});
  std::vector<std::string> names;
  for (const auto& t : tests) names.push_back(t.name());
  CHECK(names == std::vector<std::string>{"pp512", "tg128", "pp64+tg16", "pp512 @ d1024", "tg128 @ d1024",
                                          "pp64+tg16 @ d1024"});
}

TEST_CASE("Result statistics", "[bench]") {
  Result r;
  r.test = {0, 100, 0};
  r.samples_ns = {1'000'000'000, 2'000'000'000};  // 100 and 50 tokens/s
  CHECK(r.avg_ns() == 1'500'000'000);
  CHECK(r.avg_ts() == Approx(75.0));
  CHECK(r.stddev_ts() == Approx(std::sqrt(2 * 25.0 * 25.0)));  // sample sd of {100, 50}
  r.weight_bytes = 3'000'000'000;
  r.mem_bw_gbs = 4.0;
  CHECK(r.weight_gbs() == Approx(2.0));
  CHECK(r.bw_fraction() == Approx(0.5));
  CHECK(stddev({5.0}) == 0.0);
}

TEST_CASE("model description and weight traffic", "[bench]") {
  CHECK(model_type("llama", 134'515'008, "Q4_1 211, F32 61, Q6_K 1") == "llama 135M Q4_1");
  CHECK(model_type("llama", 292'000, "F32 48") == "llama 292K F32");
  CHECK(model_type("llama", 1'100'000'000, "Q4_K 154, Q6_K 23, F32 45") == "llama 1.1B Q4_K");
  CHECK(format_size(5 * 1024 * 1024) == "5.00 MiB");
  CHECK(format_params(134'515'008) == "134.52 M");
  // pp512 in batches of 512 reads the weights once; tg128 128 times.
  CHECK(weight_bytes_streamed({512, 0, 0}, 1000, 512) == 1000);
  CHECK(weight_bytes_streamed({513, 0, 0}, 1000, 512) == 2000);
  CHECK(weight_bytes_streamed({0, 128, 0}, 1000, 512) == 128000);
  CHECK(weight_bytes_streamed({512, 128, 4096}, 1000, 512) == 129000);
}

TEST_CASE("ck-bench on stories260K writes llama-bench JSON", "[bench][app]") {
  const std::string model = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
  const auto r = ck::test::run_app(
      {"ck-bench", "-m", model, "-p", "32", "-n", "8", "-pg", "16,4", "-d", "0,16", "-r", "2", "-t", "1", "-o", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto results = nlohmann::json::parse(r.out);
  REQUIRE(results.size() == 6);
  for (const auto& j : results) {
    for (const char* key : {"model_filename", "model_type", "model_size", "model_n_params", "n_threads", "n_prompt",
                            "n_gen", "n_depth", "avg_ns", "stddev_ns", "avg_ts", "stddev_ts", "samples_ns",
                            "samples_ts"}) {
      INFO(key);
      CHECK(j.contains(key));
    }
    CHECK(j["samples_ns"].size() == 2);
    CHECK(j["avg_ts"].get<double>() > 0);
    CHECK(j["n_threads"] == 1);
    CHECK(j["model_filename"] == model);
    CHECK(j["ttft_ms"].is_null() == (j["n_prompt"] == 0 || j["n_gen"] == 0));
    // avg_ts is the mean of the per-sample rates.
    const double n = j["n_prompt"].get<double>() + j["n_gen"].get<double>();
    double mean = 0;
    for (const auto& ns : j["samples_ns"]) mean += 1e9 * n / ns.get<double>() / 2;
    CHECK(j["avg_ts"].get<double>() == Approx(mean));
  }
  CHECK(results[3]["n_depth"] == 16);
}

TEST_CASE("ck-bench --profile accounts for the timed passes and nothing else", "[bench][app]") {
  const std::string model = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
  const auto r = ck::test::run_app({"ck-bench", "-m", model, "-p", "32", "-n", "4", "-d", "16", "-r", "2", "-t", "2",
                                    "-o", "json", "--profile"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto results = nlohmann::json::parse(r.out);
  REQUIRE(results.size() == 2);
  for (const auto& j : results) {
    INFO(j.dump());
    REQUIRE(j.contains("profile"));
    const auto& p = j["profile"];
    const int64_t n_prompt = j["n_prompt"], n_gen = j["n_gen"];
    // Two repetitions; neither the warm-up nor the 16 tokens of depth before
    // each repetition's clock are recorded.
    CHECK(p["tokens"] == 2 * (n_prompt + n_gen));
    CHECK(p["passes"] == (n_prompt > 0 ? 2 : 2 * n_gen));
    int64_t steps_ns = 0;
    for (const auto& step : p["steps"]) {
      const int64_t ns = step["ns"];
      CHECK(ns >= 0);
      steps_ns += ns;
      if (!step.contains("macs")) continue;
      const int64_t rows = step["rows"], cols = step["cols"], macs = step["macs"], calls = step["calls"];
      CHECK(rows > 0);
      CHECK(cols > 0);
      // The logits of the last token of each pass, once; every token
      // elsewhere, in each of stories260K's 5 layers.
      const bool logits = step["step"] == "output norm, logits";
      CHECK(calls == p["passes"].get<int64_t>() * (logits ? 1 : 5));
      CHECK(macs == (logits ? calls : p["tokens"].get<int64_t>() * calls / p["passes"].get<int64_t>()) * rows * cols);
    }
    int64_t timed_ns = 0;
    for (const auto& ns : j["samples_ns"]) timed_ns += ns.get<int64_t>();
    CHECK(steps_ns > 0);
    CHECK(steps_ns <= timed_ns);
    CHECK(p["barrier_wait_ns"].get<int64_t>() >= 0);
    // Zero only where the target has no byte dot product to time.
    if (p["int8_peak_instruction"] == "none (portable target)") {
      CHECK(p["int8_peak_gmacs"].get<double>() == 0);
    } else {
      CHECK(p["int8_peak_gmacs"].get<double>() > 1.0);
    }
  }
  const auto md = ck::test::run_app({"ck-bench", "-m", model, "-p", "32", "-n", "0", "-r", "1", "-t", "1", "--profile"});
  REQUIRE(md.exit_code == 0);
  CHECK(md.out.find("Profile of ") != std::string::npos);
  CHECK(md.out.find("| matmul gate,up ") != std::string::npos);
  CHECK(md.out.find("(of which waiting at barriers)") != std::string::npos);
}

TEST_CASE("ck-bench: markdown table and bad arguments", "[bench][app]") {
  const std::string model = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
  const auto md = ck::test::run_app({"ck-bench", "-m", model, "-p", "16", "-n", "4", "-r", "1", "-t", "1"});
  REQUIRE(md.exit_code == 0);
  CHECK(md.out.find("| model") == 0);
  CHECK(md.out.find("pp16") != std::string::npos);
  CHECK(md.out.find("tg4") != std::string::npos);
  for (std::vector<std::string> bad : {std::vector<std::string>{"-o", "xml"}, {"-t", "0"}, {"-p", "abc"},
                                       {"-pg", "5"}, {"-m", "/nonexistent.gguf"}}) {
    std::vector<std::string> argv = {"ck-bench", "-m", model, "-r", "1"};
    argv.insert(argv.end(), bad.begin(), bad.end());
    const auto r = ck::test::run_app(argv);
    INFO(bad[0] << " " << bad[1] << ": " << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("ck-bench: error:") != std::string::npos);
  }
}

TEST_CASE("ck-bench runs depths past the trained context, as llama-bench does", "[bench][app]") {
  const std::string model = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";  // trained for 2048
  const auto r = ck::test::run_app({"ck-bench", "-m", model, "-p", "8", "-n", "2", "-d", "2100", "-r", "1", "-t", "1"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("pp8 @ d2100") != std::string::npos);
}

TEST_CASE("ck-bench checks every model before printing: bad input leaves stdout empty", "[bench][app][issue13]") {
  const std::string good = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
  for (const char* format : {"json", "csv", "md", "jsonl"}) {
    for (const std::string& models : {std::string("/nonexistent/nope.gguf"), good + ",/nonexistent/nope.gguf"}) {
      const auto r = ck::test::run_app({"ck-bench", "-m", models, "-p", "8", "-n", "0", "-r", "1", "-o", format});
      INFO(format << " " << models << ": " << r.err);
      CHECK(r.exit_code == 1);
      CHECK(r.out.empty());
      CHECK(r.err.find("ck-bench: error: /nonexistent/nope.gguf") != std::string::npos);
    }
  }
}

TEST_CASE("ck-bench JSON and CSV carry the real commit and no \"null\" text", "[bench][app][issue13]") {
  const std::string model = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
  const auto json =
      ck::test::run_app({"ck-bench", "-m", model, "-p", "8", "-n", "2", "-r", "1", "-t", "1", "-o", "json"});
  REQUIRE(json.exit_code == 0);
  const auto results = nlohmann::json::parse(json.out);
  const std::string built = results[0]["build_commit"];
  INFO(built);
  std::smatch parts;
  REQUIRE(std::regex_match(built, parts, std::regex("([0-9a-f]{7,})(-dirty)?")));
  const std::string commit = parts[1];
  // A commit of this repository.
  CHECK(std::system(("git -C " + std::string(CK_SOURCE_DIR) + " cat-file -e " + commit + "^{commit}").c_str()) == 0);

  const auto csv =
      ck::test::run_app({"ck-bench", "-m", model, "-p", "8", "-n", "2", "-r", "1", "-t", "1", "-o", "csv"});
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.find("null") == std::string::npos);
  CHECK(csv.out.find("\"" + built + "\"") != std::string::npos);
  // Every row has as many fields as the header (commas inside quotes are text).
  std::istringstream lines(csv.out);
  std::string header, row;
  REQUIRE(std::getline(lines, header));
  const auto fields = [](const std::string& s) {
    int n = 1;
    bool quoted = false;
    for (char c : s) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) ++n;
    }
    return n;
  };
  while (std::getline(lines, row)) CHECK(fields(row) == fields(header));
}

TEST_CASE("ck-bench accepts llama-bench's GPU flags with a note", "[bench][app][issue13]") {
  const std::string model = std::string(CK_SHARED_DATA) + "/models/stories260K.gguf";
  const auto r = ck::test::run_app({"ck-bench", "-m", model, "-p", "8", "-n", "0", "-r", "1", "-t", "1", "-ngl", "99",
                                    "-fa", "0,1", "-o", "jsonl"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("ck-bench: note: -ngl 99 ignored") != std::string::npos);
  CHECK(r.err.find("ck-bench: note: -fa 0,1 ignored") != std::string::npos);
  CHECK(nlohmann::json::parse(r.out.substr(0, r.out.find('\n')))["n_prompt"] == 8);
}

TEST_CASE("the build commit says -dirty when tracked files differ from it", "[bench][app][issue13]") {
  namespace fs = std::filesystem;
  const fs::path repo = ck::test::temp_path("version_repo");
  fs::remove_all(repo);
  fs::create_directories(repo);
  const std::string git = "git -C " + repo.string() + " -c user.name=t -c user.email=t@t ";
  auto sh = [](const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()); };
  REQUIRE(sh(git + "init -q") == 0);
  std::ofstream(repo / "a.txt") << "one\n";
  REQUIRE(sh(git + "add a.txt") == 0);
  REQUIRE(sh(git + "commit -q -m one") == 0);
  const fs::path header = repo / "out" / "ck_version.h";
  auto built_commit = [&] {
    REQUIRE(sh(std::string(CK_CMAKE_COMMAND) + " -DSOURCE_DIR=" + repo.string() + " -DOUTPUT=" + header.string() +
               " -DPROJECT_VERSION=1.2.3 -P " + CK_SOURCE_DIR + "/apps/common/write_version.cmake") == 0);
    std::ifstream in(header);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::smatch m;
    REQUIRE(std::regex_search(text, m, std::regex("CK_BUILD_COMMIT \"([^\"]*)\"")));
    return m[1].str();
  };
  const std::string clean = built_commit();
  CHECK(std::regex_match(clean, std::regex("[0-9a-f]{7}")));
  std::ofstream(repo / "untracked.txt") << "x\n";  // untracked files are not the commit's: still clean
  CHECK(built_commit() == clean);
  std::ofstream(repo / "a.txt") << "two\n";
  CHECK(built_commit() == clean + "-dirty");
  std::ofstream(repo / "a.txt") << "one\n";  // the same text again, a newer file time
  CHECK(built_commit() == clean);
  fs::remove_all(repo);
}
