// The pre-tokenizer regexes on inputs whose split the regex defines plainly.
#include <catch2/catch.hpp>

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
