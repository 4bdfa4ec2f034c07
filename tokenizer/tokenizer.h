// The tokenizer: an immutable model built once from the vocabulary
// (VocabData, validated here) that encodes text to token ids and turns ids
// back into text, matching llama.cpp token for token. Both vocabulary
// families of the llama.cpp ecosystem: SentencePiece-style BPE ("llama") and
// byte-level BPE ("gpt2"). Every method is const and thread-safe; the scratch
// state of an encode lives on the caller's stack.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/vocab.h"

namespace ck::tok {

class Tokenizer {
 public:
  // Throws std::runtime_error naming the tokenizer.ggml.* field when the
  // vocabulary is inconsistent (empty, scores/types of the wrong length or not
  // finite / out of range, special ids or merges outside the vocabulary,
  // duplicate tokens, unknown model or pre-tokenizer).
  explicit Tokenizer(VocabData vocab);
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

  // `add_special`: BOS / EOS as tokenizer.ggml.add_bos_token / add_eos_token
  // say. `parse_special`: control tokens written in the text ("<|im_start|>")
  // become those tokens; otherwise they are plain text. User-defined tokens
  // are always matched, as in llama.cpp and Hugging Face tokenizers.
  std::vector<int32_t> encode(std::string_view text, bool add_special, bool parse_special) const;

  // The bytes token `id` stands for (not necessarily valid UTF-8 on its own:
  // a byte token is one byte). Control and unknown tokens render as "" unless
  // `render_special`. Throws on an id outside [0, n_vocab()).
  std::string token_to_piece(int32_t id, bool render_special = false) const;

  // The concatenated pieces. For SPM vocabularies with add_space_prefix, the
  // space that encode() put in front of the text is removed from the first
  // piece after a leading BOS, so decode(encode(s)) == s.
  std::string decode(std::span<const int32_t> ids, bool render_special = false) const;

  int32_t n_vocab() const;
  int32_t bos() const;  // -1 when the vocabulary has none
  int32_t eos() const;
  bool add_bos() const;  // what encode(..., add_special = true, ...) adds
  bool add_eos() const;

  // End of generation: eos, eot, eom and the tokens spelled like a known end
  // marker (<|im_end|>, <|eot_id|>, <|end|>, <end_of_turn>, <|endoftext|>, ...).
  bool is_eog(int32_t id) const;
  const std::vector<int32_t>& eog_ids() const;  // ascending

  // The raw tokenizer.chat_template (Jinja text, may be empty); see chat_template.h.
  const std::string& chat_template() const;

  // The vocabulary entry as stored (byte-level spelling, "▁" for spaces).
  const std::string& token_text(int32_t id) const;
  // The type llama.cpp uses: the stored one, except end markers become Control.
  TokenType token_type(int32_t id) const;
  bool is_spm() const;  // model "llama"; otherwise byte-level BPE

 private:
  struct Impl;
  std::unique_ptr<const Impl> impl_;
};

// Turns a stream of token ids into text that is always complete, valid UTF-8:
// a character whose bytes are split over several tokens is held back until
// it is complete. Bytes that can never form a character (an invalid
// sequence, or one cut off by flush()) come out as U+FFFD, one per maximal
// invalid subsequence, so the output can go straight to a terminal or JSON.
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer, bool render_special = false)
      : tokenizer_(tokenizer), render_special_(render_special) {}

  std::string push(int32_t id);  // the text that became complete with `id`
  std::string flush();           // whatever is held back; the decoder is then empty

 private:
  const Tokenizer& tokenizer_;
  bool render_special_;
  std::string pending_;  // bytes of an incomplete character (at most 3)
};

}  // namespace ck::tok
