// The two algorithms on vocabularies small enough to work out by hand.
#include <catch2/catch.hpp>

#include <cstdio>

#include "tokenizer/byte_unicode.h"
#include "tokenizer/tokenizer.h"

using ck::tok::TokenType;
using ck::tok::Tokenizer;
using ck::tok::VocabData;

namespace {

// <unk> <s> </s>, the 256 byte tokens (ids 3..258), then `extra` with scores.
VocabData spm_vocab(const std::vector<std::pair<std::string, float>>& extra) {
  VocabData v;
  v.model = "llama";
  v.tokens = {"<unk>", "<s>", "</s>"};
  v.token_types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    v.tokens.push_back(hex);
    v.token_types.push_back(static_cast<int32_t>(TokenType::Byte));
  }
  v.scores.assign(v.tokens.size(), 0.0f);
  for (const auto& [text, score] : extra) {
    v.tokens.push_back(text);
    v.scores.push_back(score);
    v.token_types.push_back(static_cast<int32_t>(TokenType::Normal));
  }
  v.unk_id = 0;
  v.bos_id = 1;
  v.eos_id = 2;
  v.add_bos = true;
  return v;
}

constexpr int32_t kFirstExtra = 259;

}  // namespace

TEST_CASE("SPM merges the highest-scoring pair first", "[tokenizer][spm]") {
  // "▁abc": "ab" (-1) beats "bc" (-2) and "▁a" (-6); then "▁" + "ab" -> "▁ab" (-3)
  // beats "ab" + "c" -> "abc" (-4), and "▁ab" + "c" is no token.
  const Tokenizer t(spm_vocab({{"\xE2\x96\x81", -5}, {"a", -5}, {"b", -5}, {"c", -5}, {"ab", -1}, {"bc", -2},
                               {"\xE2\x96\x81" "ab", -3}, {"abc", -4}, {"\xE2\x96\x81" "a", -6}}));
  const int32_t c = kFirstExtra + 3, space_ab = kFirstExtra + 6;
  CHECK(t.encode("abc", false, false) == std::vector<int32_t>{space_ab, c});
  CHECK(t.encode("abc", true, false) == std::vector<int32_t>{1, space_ab, c});
}

TEST_CASE("SPM breaks score ties to the left and falls back to bytes", "[tokenizer][spm]") {
  const Tokenizer t(spm_vocab({{"a", -1}, {"aa", -1}}));
  const int32_t a = kFirstExtra, aa = kFirstExtra + 1;
  VocabData v = spm_vocab({{"a", -1}, {"aa", -1}});
  v.add_space_prefix = false;
  const Tokenizer no_prefix(std::move(v));
  CHECK(no_prefix.encode("aaa", false, false) == std::vector<int32_t>{aa, a});
  // "▁" is not a token here: the prefix space falls back to its three bytes.
  CHECK(t.encode("a", false, false) == std::vector<int32_t>{3 + 0xE2, 3 + 0x96, 3 + 0x81, a});
  // An invalid byte stays one byte token, the character after it is untouched.
  CHECK(no_prefix.encode("\xFF" "a", false, false) == std::vector<int32_t>{3 + 0xFF, a});
  CHECK(no_prefix.decode(no_prefix.encode("\xC3" "a\xE2\x82", false, false)) == "\xC3" "a\xE2\x82");
}

TEST_CASE("SPM space prefix and decode", "[tokenizer][spm]") {
  // "▁hi" is reached as "▁" + "hi": SPM only forms tokens from pairs of tokens.
  const Tokenizer t(spm_vocab({{"\xE2\x96\x81" "hi", -1}, {"\xE2\x96\x81", -2}, {"h", -3}, {"i", -3}, {"hi", -2.5}}));
  const int32_t hi = kFirstExtra, space = kFirstExtra + 1;
  CHECK(t.encode("hi hi", false, false) == std::vector<int32_t>{hi, hi});
  CHECK(t.encode(" hi", false, false) == std::vector<int32_t>{space, hi});
  CHECK(t.encode("", true, false) == std::vector<int32_t>{1});
  CHECK(t.token_to_piece(hi) == " hi");
  CHECK(t.decode(std::vector<int32_t>{1, hi, hi}) == "hi hi");
  CHECK(t.decode(std::vector<int32_t>{hi, hi}) == "hi hi");
  CHECK(t.decode(std::vector<int32_t>{space, hi}) == " hi");
  CHECK(t.token_to_piece(3 + 'A') == "A");
  CHECK(t.token_to_piece(1).empty());
  CHECK(t.token_to_piece(1, true) == "<s>");
}

namespace {

// A byte-level vocabulary: the 256 byte characters, then merges.
VocabData bpe_vocab(const std::vector<std::string>& merges) {
  VocabData v;
  v.model = "gpt2";
  v.pre = "gpt-2";
  for (int b = 0; b < 256; ++b) {
    std::string spelled;
    const char c = static_cast<char>(b);
    ck::tok::append_byte_level(std::string_view(&c, 1), spelled);
    v.tokens.push_back(spelled);
  }
  for (const auto& m : merges) {
    v.merges.push_back(m);
    const auto space = m.find(' ', 1);
    v.tokens.push_back(m.substr(0, space) + m.substr(space + 1));
  }
  v.tokens.push_back("<|endoftext|>");
  v.token_types.assign(v.tokens.size(), 1);
  v.token_types.back() = 3;
  v.eos_id = v.bos_id = static_cast<int32_t>(v.tokens.size()) - 1;
  return v;
}

int32_t byte_id(const VocabData& v, char c) {
  std::string spelled;
  ck::tok::append_byte_level(std::string_view(&c, 1), spelled);
  return static_cast<int32_t>(std::find(v.tokens.begin(), v.tokens.end(), spelled) - v.tokens.begin());
}

}  // namespace

TEST_CASE("byte-level BPE applies merges by rank", "[tokenizer][bpe]") {
  // Ranks: "b c" (0) before "a b" (1): "abc" -> a + bc; "bc d"... not listed.
  const VocabData v = bpe_vocab({"b c", "a b", "a bc", "Ġ a"});
  const Tokenizer t(v);
  const int32_t bc = 256, abc = 258, space_a = 259;
  CHECK(t.encode("abc", false, false) == std::vector<int32_t>{abc});
  CHECK(t.encode("abcd", false, false) == std::vector<int32_t>{abc, byte_id(v, 'd')});
  CHECK(t.encode("bc", false, false) == std::vector<int32_t>{bc});
  // The pre-tokenizer keeps " a" together and splits before the space.
  CHECK(t.encode("x a", false, false) == std::vector<int32_t>{byte_id(v, 'x'), space_a});
  CHECK(t.decode(t.encode("x a\xFF", false, false)) == "x a\xFF");
  CHECK(t.token_to_piece(space_a) == " a");
  // add_bos is false by default for byte-level vocabularies.
  CHECK(t.encode("bc", true, false) == std::vector<int32_t>{bc});
}

TEST_CASE("special tokens are split out longest first", "[tokenizer][special]") {
  VocabData v = bpe_vocab({});
  v.tokens.push_back("<|end|>x");
  v.token_types.push_back(static_cast<int32_t>(TokenType::Control));
  const int32_t eot = static_cast<int32_t>(v.tokens.size()) - 2, endx = eot + 1;
  const Tokenizer t(v);
  CHECK(t.encode("a<|endoftext|>", false, true) == std::vector<int32_t>{byte_id(v, 'a'), eot});
  CHECK(t.encode("<|end|>x<|endoftext|>", false, true) == std::vector<int32_t>{endx, eot});
  CHECK(t.encode("<|endoftext|>", false, false).size() == 13);
  CHECK(t.is_eog(eot));
}

TEST_CASE("user-defined tokens are matched even without parse_special", "[tokenizer][special]") {
  VocabData v = bpe_vocab({});
  v.tokens.push_back("<tool>");
  v.token_types.push_back(static_cast<int32_t>(TokenType::UserDefined));
  const int32_t tool = static_cast<int32_t>(v.tokens.size()) - 1;
  const Tokenizer t(v);
  CHECK(t.encode("a<tool>", false, false) == std::vector<int32_t>{byte_id(v, 'a'), tool});
  CHECK(t.token_to_piece(tool) == "<tool>");
}
