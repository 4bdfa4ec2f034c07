// llama.cpp's tokenizer test vectors (tests/test-tokenizer-0): NAME.gguf.inp
// holds the test strings, each followed by the line "__ggml_vocab_test__"
// (so a string is everything up to "\n__ggml_vocab_test__\n", its own
// newlines included); NAME.gguf.out holds one line per string with the
// expected ids, each preceded by a space. No BOS, special tokens not parsed.
#include <catch2/catch.hpp>

#include <sstream>

#include "tests/tokenizer/vocab_files.h"

namespace {

struct Case {
  std::string text;
  std::vector<int32_t> ids;
};

std::vector<Case> read_cases(const std::string& name) {
  const std::string inp = ck::test::read_file(ck::test::vectors_dir() / (name + ".inp"));
  const std::string outp = ck::test::read_file(ck::test::vectors_dir() / (name + ".out"));
  const std::string separator = "\n__ggml_vocab_test__\n";
  std::vector<Case> cases;
  for (size_t pos = 0; pos < inp.size();) {
    const size_t end = inp.find(separator, pos);
    REQUIRE(end != std::string::npos);  // every string is terminated by the separator
    cases.push_back({inp.substr(pos, end - pos), {}});
    pos = end + separator.size();
  }
  std::istringstream lines(outp);
  std::string line;
  size_t i = 0;
  for (; std::getline(lines, line); ++i) {
    REQUIRE(i < cases.size());
    std::istringstream ids(line);
    for (int32_t id; ids >> id;) cases[i].ids.push_back(id);
  }
  REQUIRE(i == cases.size());
  return cases;
}

void check_vocab(const std::string& name) {
  const auto tokenizer = ck::test::load_tokenizer(ck::test::vectors_dir() / name);
  const auto cases = read_cases(name);
  REQUIRE(cases.size() > 40);
  for (const Case& c : cases) {
    INFO(name << ": '" << c.text << "'");
    const auto ids = tokenizer.encode(c.text, /*add_special=*/false, /*parse_special=*/false);
    CHECK(ids == c.ids);
    // Detokenizing gives the string back: every vocabulary here is lossless
    // for these strings (byte-level BPE for any bytes, SPM through byte fallback).
    CHECK(tokenizer.decode(ids) == c.text);
  }
}

}  // namespace

TEST_CASE("llama-spm reference vectors", "[tokenizer][vectors]") { check_vocab("ggml-vocab-llama-spm.gguf"); }
TEST_CASE("phi-3 reference vectors", "[tokenizer][vectors]") { check_vocab("ggml-vocab-phi-3.gguf"); }
TEST_CASE("gpt-2 reference vectors", "[tokenizer][vectors]") { check_vocab("ggml-vocab-gpt-2.gguf"); }
TEST_CASE("starcoder reference vectors", "[tokenizer][vectors]") { check_vocab("ggml-vocab-starcoder.gguf"); }
