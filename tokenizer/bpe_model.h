// Byte-level BPE (tokenizer.ggml.model = "gpt2"): the pre-tokenizer splits the
// text into words; each word starts as one symbol per byte (the byte's
// printable spelling, byte_unicode.h) and the adjacent pair with the lowest
// merge rank (its line in tokenizer.ggml.merges) is merged until none is left.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/merge_table.h"
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
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;

  const TokenIndex& index_;
  Pretokenizer pretokenizer_;
  MergeTable merges_;
  std::array<int32_t, 256> byte_tokens_{};  // the one-character token of each byte; -1 = none
};

}  // namespace ck::tok
