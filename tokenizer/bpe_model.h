// Byte-level BPE (tokenizer.ggml.model = "gpt2"): the pre-tokenizer splits the
// text into words; each word starts as one symbol per byte (the byte's
// printable spelling, byte_unicode.h) and the adjacent pair with the lowest
// merge rank (its line in tokenizer.ggml.merges) is merged until none is left.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/pretokenizer.h"
#include "tokenizer/token_index.h"
#include "tokenizer/vocab.h"

namespace ck::tok {

class BpeModel {
 public:
  // Validates the merges (both sides and their concatenation must be
  // tokens) and compiles the pre-tokenizer. `index` must outlive the model.
  BpeModel(const VocabData& vocab, const TokenIndex& index);

  // Appends the tokens of `text` (raw bytes; any byte sequence is accepted).
  void encode(std::string_view text, std::vector<int32_t>& out) const;

 private:
  struct Merge {
    int32_t rank;
    int32_t result;  // the id of the merged token
  };
  static uint64_t pair_key(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  const Merge* find_merge(int32_t left, int32_t right) const {
    auto it = merges_.find(pair_key(left, right));
    return it == merges_.end() ? nullptr : &it->second;
  }
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;

  const TokenIndex& index_;
  Pretokenizer pretokenizer_;
  std::unordered_map<uint64_t, Merge> merges_;
  std::array<int32_t, 256> byte_tokens_{};  // the one-character token of each byte; -1 = none
};

}  // namespace ck::tok
