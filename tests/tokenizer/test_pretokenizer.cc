// The pre-tokenizer regexes on inputs whose split the regex defines plainly,
// and against Hugging Face tokenizers (Oniguruma) running the models' own
// patterns on llama.cpp's test strings (golden/pretokenizer_golden.json).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/tokenizer/vocab_files.h"
#include "tokenizer/pretokenizer.h"

using ck::tok::Pretokenizer;

namespace {

std::vector<std::string> split(const std::string& pre, std::string_view text) {
  const Pretokenizer p(pre);
  std::vector<std::string_view> words;
  p.split(text, words);
  std::string joined;
  std::vector<std::string> out;
  for (auto w : words) {
    joined += w;
    out.emplace_back(w);
  }
  CHECK(joined == text);  // a split never loses or reorders bytes
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("gpt-2 splits words, numbers, punctuation and spaces", "[tokenizer][pre]") {
  CHECK(split("gpt-2", "Hello world's  42!!\n") == V{"Hello", " world", "'s", " ", " 42", "!!", "\n"});
  CHECK(split("gpt-2", "a   b") == V{"a", "  ", " b"});  // \s+(?!\S) leaves the last space to the word
}

TEST_CASE("smollm splits digits one by one", "[tokenizer][pre]") {
  CHECK(split("smollm", "x 1234") == V{"x", " ", "1", "2", "3", "4"});
}

TEST_CASE("llama-bpe groups digits by three and keeps case-insensitive contractions", "[tokenizer][pre]") {
  CHECK(split("llama-bpe", "12345 I'M") == V{"123", "45", " I", "'M"});
}

TEST_CASE("qwen2 splits digits one by one", "[tokenizer][pre]") {
  CHECK(split("qwen2", "ab12") == V{"ab", "1", "2"});
}

TEST_CASE("deepseek-llm: \\s+$ matches only at the very end", "[tokenizer][pre]") {
  const auto words = split("deepseek-llm", "ab  \n");
  CHECK(words == V{"ab", "  ", "\n"});
}

TEST_CASE("every listed pre-tokenizer compiles and keeps invalid UTF-8", "[tokenizer][pre]") {
  const std::string known = ck::tok::known_pretokenizers();
  for (const char* name : {"default", "gpt-2", "llama-bpe", "qwen2", "smollm", "starcoder", "refact",
                           "deepseek-llm", "deepseek-coder", "falcon", "mpt", ""}) {
    INFO(name);
    CHECK(split(name, "Hi \xFF\xC3 there 123 \xE6\x97\xA5\xE6\x9C\xAC!").size() > 3);
    if (*name) CHECK(known.find(name) != std::string::npos);
  }
}

TEST_CASE("pre-tokenizers split like Hugging Face's regex engine", "[tokenizer][pre]") {
  const auto golden = nlohmann::json::parse(ck::test::read_file(
      std::filesystem::path(CK_SOURCE_DIR) / "tests" / "tokenizer" / "golden" / "pretokenizer_golden.json"));
  REQUIRE(golden.size() >= 7);
  for (const auto& [name, cases] : golden.items()) {
    REQUIRE(cases.size() > 40);
    for (const auto& c : cases) {
      INFO(name << ": '" << c.at("text").get<std::string>() << "'");
      CHECK(split(name, c.at("text").get<std::string>()) == c.at("pieces").get<V>());
    }
  }
}
