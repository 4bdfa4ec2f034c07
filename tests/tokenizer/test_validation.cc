// A vocabulary that does not hold together is refused with a message naming
// the field, never a crash or a silent fallback.
#include <catch2/catch.hpp>

#include <cmath>

#include "tokenizer/tokenizer.h"

using Catch::Matchers::Contains;
using ck::tok::Tokenizer;
using ck::tok::VocabData;

namespace {

VocabData good_spm() {
  VocabData v;
  v.model = "llama";
  v.tokens = {"<unk>", "<s>", "</s>", "a"};
  v.scores = {0, 0, 0, -1};
  v.token_types = {2, 3, 3, 1};
  v.unk_id = 0;
  v.bos_id = 1;
  v.eos_id = 2;
  return v;
}

VocabData good_bpe() {
  VocabData v;
  v.model = "gpt2";
  v.pre = "smollm";
  v.tokens = {"a", "b", "ab"};
  v.merges = {"a b"};
  return v;
}

}  // namespace

TEST_CASE("valid vocabularies are accepted", "[tokenizer][validation]") {
  CHECK_NOTHROW(Tokenizer(good_spm()));
  CHECK_NOTHROW(Tokenizer(good_bpe()));
}

TEST_CASE("invalid vocabularies are refused with the field named", "[tokenizer][validation]") {
  auto refuse = [](VocabData v, const std::string& what) {
    CHECK_THROWS_WITH(Tokenizer(std::move(v)), Contains(what));
  };
  VocabData v = good_spm();
  v.model = "bert";
  refuse(v, "tokenizer.ggml.model");
  v = good_spm();
  v.tokens.clear();
  v.scores.clear();
  v.token_types.clear();
  refuse(v, "tokenizer.ggml.tokens is empty");
  v = good_spm();
  v.scores.pop_back();
  refuse(v, "tokenizer.ggml.scores has 3 entries");
  v = good_spm();
  v.scores[3] = std::nanf("");
  refuse(v, "tokenizer.ggml.scores[3]");
  v = good_spm();
  v.token_types[2] = 7;
  refuse(v, "tokenizer.ggml.token_type[2] = 7");
  v = good_spm();
  v.bos_id = 4;
  refuse(v, "tokenizer.ggml.bos_token_id = 4");
  v = good_spm();
  v.eot_id = -7;
  refuse(v, "tokenizer.ggml.eot_token_id");
  v = good_spm();
  v.tokens[3] = "<s>";
  refuse(v, "appears twice");
  v = good_spm();
  v.bos_id = -1;
  v.add_bos = true;
  refuse(v, "add_bos_token is true");

  v = good_bpe();
  v.merges = {"a c"};
  refuse(v, "tokenizer.ggml.merges[0] = 'a c': 'c' is not in the vocabulary");
  v = good_bpe();
  v.merges = {"b a"};
  refuse(v, "the merged token is not in the vocabulary");
  v = good_bpe();
  v.merges = {"ab"};
  refuse(v, "expected two tokens");
  v = good_bpe();
  v.pre = "no-such-pre";
  refuse(v, "unknown pre-tokenizer 'no-such-pre', expected one of: default, gpt-2");
}

TEST_CASE("ids outside the vocabulary are refused", "[tokenizer][validation]") {
  const Tokenizer t(good_spm());
  CHECK_THROWS_WITH(t.token_to_piece(4), Contains("token id 4 is outside the vocabulary [0, 4)"));
  CHECK_THROWS_WITH(t.token_to_piece(-1), Contains("token id -1"));
  CHECK_THROWS_AS(t.decode(std::vector<int32_t>{0, 99}), std::runtime_error);
}
