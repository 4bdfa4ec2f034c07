// -ctk/--cache-type-k and -ctv/--cache-type-v (apps/common/kv_cache_flags.h):
// the values, the errors for llama.cpp's types ck lacks, the load line, and
// the flags through every app that builds a session.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "app_test_support.h"
#include "apps/common/kv_cache_flags.h"
#include "subprocess.h"

TEST_CASE("cache types: f16 and f32; llama.cpp's others and unknown names are errors naming the flag",
          "[flags][kv-cache]") {
  CHECK(ck::app::parse_kv_cache_type("f16", "-ctk"));
  CHECK_FALSE(ck::app::parse_kv_cache_type("f32", "-ctk"));
  CHECK_THROWS_WITH(ck::app::parse_kv_cache_type("q8_0", "-ctk/--cache-type-k"),
                    "-ctk/--cache-type-k q8_0: llama.cpp's q8_0 cache is not implemented in ck; ck's KV cache holds "
                    "f16 (the default) or f32");
  CHECK_THROWS_WITH(ck::app::parse_kv_cache_type("bf16", "-ctv"), Catch::StartsWith("-ctv bf16: llama.cpp's bf16"));
  CHECK_THROWS_WITH(ck::app::parse_kv_cache_type("F16", "-ctv"),
                    "-ctv F16: not a KV cache type; ck's KV cache holds f16 (the default) or f32");
  const ck::KvCacheTypes mixed = ck::app::kv_cache_types({.key = "f32", .value = "f16"});
  CHECK_FALSE(mixed.key_f16);
  CHECK(mixed.value_f16);
  CHECK_THROWS_WITH(ck::app::kv_cache_types({.key = "f16", .value = "q4_0"}),
                    Catch::StartsWith("-ctv/--cache-type-v q4_0"));
}

TEST_CASE("the KV cache line: keys and values, layers x positions x KV width", "[kv-cache]") {
  ck::ModelConfig c;  // SmolLM2-135M's shape: 30 layers, 3 KV heads of 64
  c.n_layers = 30;
  c.n_kv_heads = 3;
  c.head_dim = 64;
  // 2 x 30 x 4096 x 192 halves = 94371840 bytes = 90 MiB; floats twice that.
  CHECK(ck::app::kv_cache_summary(c, 4096, 1, {}) == "KV cache: 2 x 30 layers x 4096 ctx x 192 f16 = 90.0 MiB");
  CHECK(ck::app::kv_cache_summary(c, 4096, 1, {.key_f16 = false, .value_f16 = false}) ==
        "KV cache: 2 x 30 layers x 4096 ctx x 192 f32 = 180.0 MiB");
  CHECK(ck::app::kv_cache_summary(c, 4096, 1, {.key_f16 = true, .value_f16 = false}) ==
        "KV cache: 30 layers x 4096 ctx x 192 x (K f16 + V f32) = 135.0 MiB");
  CHECK(ck::app::kv_cache_summary(c, 1024, 4, {}) ==
        "KV cache: 2 x 4 slots x 30 layers x 1024 ctx x 192 f16 = 90.0 MiB");
  CHECK(ck::app::kv_cache_summary(c, 65536, 1, {.key_f16 = false, .value_f16 = false}) ==
        "KV cache: 2 x 30 layers x 65536 ctx x 192 f32 = 2.8 GiB");  // 2880 MiB
  c.n_layers = 5;  // stories260K: 5 layers, 4 KV heads of 8; 2 x 5 x 64 x 32 halves = 40960 bytes
  c.n_kv_heads = 4;
  c.head_dim = 8;
  CHECK(ck::app::kv_cache_summary(c, 64, 1, {}) == "KV cache: 2 x 5 layers x 64 ctx x 32 f16 = 40.0 KiB");
}

TEST_CASE("every app that builds a session refuses a cache type it lacks: one error line, exit 1",
          "[flags][kv-cache][app]") {
  const std::string m = ck::test::stories_model();
  const std::string text = ck::test::temp_file("kv_flags.txt", "Once upon a time there was a cat.");
  const std::vector<std::vector<std::string>> runs = {
      {"ck-run", "-m", m, "-p", "x"},
      {"ck-chat", "-m", m, "-p", "x"},
      {"ck-perplexity", "-m", m, "-f", text},
      {"ck-bench", "-m", m, "-p", "8", "-n", "0", "-r", "1"},
      {"ck-server", "-m", m, "--port", "0"},
      {"ck-batch-bench", "-m", m},
  };
  for (const auto& base : runs) {
    for (const auto& [flag, value, message] :
         {std::tuple{"-ctk", "q8_0", "-ctk/--cache-type-k q8_0: llama.cpp's q8_0 cache is not implemented in ck"},
          std::tuple{"-ctv", "f8", "-ctv/--cache-type-v f8: not a KV cache type; ck's KV cache holds f16 (the "
                                   "default) or f32"}}) {
      std::vector<std::string> argv = base;
      argv.insert(argv.end(), {flag, value});
      const auto r = ck::test::run_app(argv);
      INFO(base[0] << " " << flag << " " << value << ": " << r.err);
      CHECK(r.exit_code == 1);
      CHECK(ck::test::is_one_error_line(r.err, base[0]));
      CHECK(r.err.find(message) != std::string::npos);
    }
  }
}

TEST_CASE("ck-run announces the KV cache it allocates, with the types given", "[kv-cache][app]") {
  const std::string m = ck::test::stories_model();
  const auto f16 =
      ck::test::run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "4", "--temp", "0", "-c", "64"});
  INFO(f16.err);
  REQUIRE(f16.exit_code == 0);
  CHECK(ck::test::occurrences(f16.err, "ck-run: KV cache: 2 x ") == 1);
  CHECK(f16.err.find(" x 64 ctx x ") != std::string::npos);
  CHECK(f16.err.find(" f16 = ") != std::string::npos);
  const auto mixed = ck::test::run_app({"ck-run", "-m", m, "-p", "Once upon a time", "-n", "4", "--temp", "0", "-c",
                                        "64", "--cache-type-k", "f32", "-ctv", "f16"});
  INFO(mixed.err);
  REQUIRE(mixed.exit_code == 0);
  CHECK(mixed.err.find(" x (K f32 + V f16) = ") != std::string::npos);
}

TEST_CASE("ck-bench runs every pair of -ctk and -ctv and reports type_k, type_v", "[bench][kv-cache][app]") {
  const auto r = ck::test::run_app({"ck-bench", "-m", ck::test::stories_model(), "-p", "8", "-n", "0", "-r", "1", "-t",
                                    "1", "-ctk", "f16,f32", "-ctv", "f32", "-o", "jsonl"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::vector<std::pair<std::string, std::string>> types;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    types.emplace_back(j.at("type_k"), j.at("type_v"));
  }
  CHECK(types == std::vector<std::pair<std::string, std::string>>{{"f16", "f32"}, {"f32", "f32"}});
}
