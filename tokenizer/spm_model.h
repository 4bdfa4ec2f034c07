// SentencePiece-style BPE (tokenizer.ggml.model = "llama"), llama.cpp's
// algorithm: start from UTF-8 characters and repeatedly merge the adjacent
// pair whose concatenation is a token with the highest score; characters no
// token covers fall back to their bytes (<0xNN>).
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/token_index.h"
#include "tokenizer/vocab.h"

namespace ck::tok {

class SpmModel {
 public:
  // `vocab` and `index` must outlive the model.
  SpmModel(const VocabData& vocab, const TokenIndex& index);

  // Appends the tokens of `text`, which the caller has already prepared
  // (space prefix added, spaces written as U+2581).
  void encode(std::string_view text, std::vector<int32_t>& out) const;

 private:
  float score(int32_t id) const { return vocab_.scores.empty() ? 0.0f : vocab_.scores[id]; }
  struct Scratch;  // the symbol list and merge queue, reused across chunks
  void encode_chunk(std::string_view text, Scratch& scratch, std::vector<int32_t>& out) const;
  void append_bytes(std::string_view piece, std::vector<int32_t>& out) const;

  const VocabData& vocab_;
  const TokenIndex& index_;
  // Byte fallback: "<0xNN>", else the one-byte token, else unk; -1 = none.
  std::array<int32_t, 256> byte_tokens_{};
  // ASCII characters that occur in no token longer than one character: no
  // merge can ever cross them, so the text is cut there and each chunk merged
  // on its own: the same tokens, with small queues instead of one per text.
  std::array<bool, 128> isolated_{};
};

}  // namespace ck::tok
