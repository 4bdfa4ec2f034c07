#include "tokenizer/validate_vocab.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ck::tok {

namespace {

void check_id(int32_t id, int32_t n, const char* field) {
  if (id < -1 || id >= n) {
    throw std::runtime_error(std::string("tokenizer.ggml.") + field + " = " + std::to_string(id) +
                             ", expected a token id in [0, " + std::to_string(n) + ") or none");
  }
}

}  // namespace

void validate_vocab(const VocabData& v) {
  if (v.model != "llama" && v.model != "gpt2") {
    throw std::runtime_error("tokenizer.ggml.model = '" + v.model +
                             "', expected 'llama' (SentencePiece-style) or 'gpt2' (byte-level BPE)");
  }
  if (v.tokens.empty()) throw std::runtime_error("tokenizer.ggml.tokens is empty, expected a vocabulary");
  if (v.tokens.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    throw std::runtime_error("tokenizer.ggml.tokens has " + std::to_string(v.tokens.size()) +
                             " entries, more than token ids can address");
  }
  const auto n = static_cast<int32_t>(v.tokens.size());
  if (!v.scores.empty()) {
    if (v.scores.size() != v.tokens.size()) {
      throw std::runtime_error("tokenizer.ggml.scores has " + std::to_string(v.scores.size()) +
                               " entries, expected one per token (" + std::to_string(n) + ")");
    }
    for (size_t i = 0; i < v.scores.size(); ++i) {
      if (!std::isfinite(v.scores[i])) {
        throw std::runtime_error("tokenizer.ggml.scores[" + std::to_string(i) + "] is not finite");
      }
    }
  }
  if (!v.token_types.empty()) {
    if (v.token_types.size() != v.tokens.size()) {
      throw std::runtime_error("tokenizer.ggml.token_type has " + std::to_string(v.token_types.size()) +
                               " entries, expected one per token (" + std::to_string(n) + ")");
    }
    for (size_t i = 0; i < v.token_types.size(); ++i) {
      if (v.token_types[i] < 0 || v.token_types[i] > static_cast<int32_t>(TokenType::Byte)) {
        throw std::runtime_error("tokenizer.ggml.token_type[" + std::to_string(i) + "] = " +
                                 std::to_string(v.token_types[i]) + ", expected 0..6");
      }
    }
  }
  check_id(v.bos_id, n, "bos_token_id");
  check_id(v.eos_id, n, "eos_token_id");
  check_id(v.unk_id, n, "unknown_token_id");
  check_id(v.pad_id, n, "padding_token_id");
  check_id(v.eot_id, n, "eot_token_id");
  check_id(v.eom_id, n, "eom_token_id");
  if (v.add_bos && v.bos_id < 0) {
    throw std::runtime_error("tokenizer.ggml.add_bos_token is true but tokenizer.ggml.bos_token_id is not set");
  }
  if (v.add_eos && v.eos_id < 0) {
    throw std::runtime_error("tokenizer.ggml.add_eos_token is true but tokenizer.ggml.eos_token_id is not set");
  }
}

}  // namespace ck::tok
